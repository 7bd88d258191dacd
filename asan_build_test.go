//go:build cgo && asan

package sqlite3

// Under go test -asan, context's (*cancelCtx).Done allocates on each call, so
// the allocation counts of runs that watch a cancellable context are not
// those of a normal build.
func init() { asanBuild = true }
