package otelsqlite

import (
	"context"
	"database/sql"

	"github.com/fastsqlite/sqlite3"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// CheckpointResultKey tells the three outcomes of the WAL bound apart on
// sqlite.checkpoints: "truncated" (the WAL was checkpointed and truncated),
// "failed" (readers, a writer or another process held it back) and
// "deferred" (a snapshot that held it back before was still open: it only
// copied what it could).
const CheckpointResultKey = attribute.Key("sqlite.checkpoint.result")

// RegisterFileStats makes the FileStats of db's database file (share.go,
// sqlite3.Stats) observable metrics of meter, read at each collection:
//
//	sqlite.connections              {connection}  UpDownCounter  open connections of the process on the file
//	sqlite.write_turn.waits         {wait}        Counter        waits for the write turn (or lock) that ended with it
//	sqlite.write_turn.wait_time     s             Counter        their total
//	sqlite.write_turn.wait_max      s             Gauge          the longest
//	sqlite.write_turn.queue         {connection}  UpDownCounter  connections waiting for it now
//	sqlite.busy_timeouts            {timeout}     Counter        waits that ran out of busy timeout ("database is locked")
//	sqlite.refused_upgrades         {write}       Counter        writes refused at once because their transaction read first
//	sqlite.wal.size                 By            UpDownCounter  the WAL file's size
//	sqlite.wal.usage                By            UpDownCounter  the WAL's part a reader may still have to read
//	sqlite.wal.limit                By            UpDownCounter  the WAL bound (_wal_bound), when there is one
//	sqlite.checkpoints              {checkpoint}  Counter        the bound's checkpoints, by sqlite.checkpoint.result
//	sqlite.checkpoint.time          s             Counter        their total time, readers held included
//	sqlite.checkpoint.held_readers  {transaction} Counter        read transactions the bound held while it ran
//	sqlite.checkpoint.hold_time     s             Counter        their total wait
//	sqlite.group_commits            {commit}      Counter        commits that held two or more writes (_group_commit=1)
//	sqlite.group_commit.writes      {write}       Counter        the writes they held
//	sqlite.replications             {upload}      Counter        Litestream's confirmations (_replicate_wait)
//	sqlite.replication.writes       {write}       Counter        writes acknowledged once confirmed
//	sqlite.replication.failures     {write}       Counter        writes told ErrNotReplicated
//	sqlite.replication.wait_time    s             Counter        the writes' total wait for a confirmation
//
// The numbers are the file's, for all the connections of the process
// (every pool on the file reports the same ones): register one pool per
// file, with attrs that name the file (semconv.DBNamespace(path)) when
// there are several. Each collection borrows a connection of db, as
// sqlite3.Stats does (a lock and a copy, no SQL), and waits for one like a
// query when the pool has none free: a pool that readers share is the one
// to register, rather than a one-connection writer pool. A database that
// is not a file (":memory:") reports nothing. A nil meter is the global
// provider's meter of ScopeName.
//
// Unregister the returned Registration before closing db.
func RegisterFileStats(meter metric.Meter, db *sql.DB, attrs ...attribute.KeyValue) (metric.Registration, error) {
	if meter == nil {
		meter = otel.GetMeterProvider().Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
	}
	var (
		ins  fileInstruments
		errs []error
	)
	i64 := func(name, unit, desc string) metric.Int64ObservableCounter {
		c, err := meter.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	f64 := func(name, unit, desc string) metric.Float64ObservableCounter {
		c, err := meter.Float64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	i64ud := func(name, unit, desc string) metric.Int64ObservableUpDownCounter {
		c, err := meter.Int64ObservableUpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	ins.connections = i64ud("sqlite.connections", "{connection}", "Open connections of the process on the database file.")
	ins.turnWaits = i64("sqlite.write_turn.waits", "{wait}", "Waits for the file's write turn (or write lock) that ended with it.")
	ins.turnWaitTime = f64("sqlite.write_turn.wait_time", "s", "Total time spent waiting for the file's write turn.")
	waitMax, err := meter.Float64ObservableGauge("sqlite.write_turn.wait_max", metric.WithUnit("s"), metric.WithDescription("The longest wait for the file's write turn."))
	errs = append(errs, err)
	ins.turnWaitMax = waitMax
	ins.turnQueue = i64ud("sqlite.write_turn.queue", "{connection}", "Connections waiting for the file's write turn now.")
	ins.busyTimeouts = i64("sqlite.busy_timeouts", "{timeout}", "Waits for a lock that ran out of busy timeout (database is locked).")
	ins.refusedUpgrades = i64("sqlite.refused_upgrades", "{write}", "Writes refused at once because their transaction read first.")
	ins.walSize = i64ud("sqlite.wal.size", "By", "Size of the WAL file.")
	ins.walUsage = i64ud("sqlite.wal.usage", "By", "Bytes of the WAL that a reader may still have to read.")
	ins.walLimit = i64ud("sqlite.wal.limit", "By", "The WAL bound (_wal_bound) of the file.")
	ins.checkpoints = i64("sqlite.checkpoints", "{checkpoint}", "Checkpoints of the WAL bound, by result.")
	ins.checkpointTime = f64("sqlite.checkpoint.time", "s", "Total time of the WAL bound's checkpoints, readers held included.")
	ins.heldReaders = i64("sqlite.checkpoint.held_readers", "{transaction}", "Read transactions the WAL bound held while it checkpointed.")
	ins.holdTime = f64("sqlite.checkpoint.hold_time", "s", "Total time read transactions were held by the WAL bound.")
	ins.groupCommits = i64("sqlite.group_commits", "{commit}", "Commits that held the writes of two or more connections.")
	ins.groupedWrites = i64("sqlite.group_commit.writes", "{write}", "Writes held by group commits.")
	ins.replications = i64("sqlite.replications", "{upload}", "Litestream's confirmations that the replica holds the writes (_replicate_wait).")
	ins.replicatedWrites = i64("sqlite.replication.writes", "{write}", "Writes acknowledged once Litestream confirmed them.")
	ins.replicationFailures = i64("sqlite.replication.failures", "{write}", "Writes committed locally whose replication Litestream did not confirm.")
	ins.replicationWait = f64("sqlite.replication.wait_time", "s", "The writes' total wait for Litestream's confirmation.")
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}

	set := attribute.NewSet(attrs...)
	with := func(kv attribute.KeyValue) metric.ObserveOption {
		return metric.WithAttributeSet(attribute.NewSet(append(attrs[:len(attrs):len(attrs)], kv)...))
	}
	o := observeOptions{
		base:      metric.WithAttributeSet(set),
		truncated: with(CheckpointResultKey.String("truncated")),
		failed:    with(CheckpointResultKey.String("failed")),
		deferred:  with(CheckpointResultKey.String("deferred")),
	}
	return meter.RegisterCallback(func(ctx context.Context, obs metric.Observer) error {
		st, err := sqlite3.Stats(ctx, db)
		if err != nil {
			return err
		}
		ins.observe(obs, st, o)
		return nil
	}, ins.all()...)
}

type fileInstruments struct {
	connections     metric.Int64ObservableUpDownCounter
	turnWaits       metric.Int64ObservableCounter
	turnWaitTime    metric.Float64ObservableCounter
	turnWaitMax     metric.Float64ObservableGauge
	turnQueue       metric.Int64ObservableUpDownCounter
	busyTimeouts    metric.Int64ObservableCounter
	refusedUpgrades metric.Int64ObservableCounter
	walSize         metric.Int64ObservableUpDownCounter
	walUsage        metric.Int64ObservableUpDownCounter
	walLimit        metric.Int64ObservableUpDownCounter
	checkpoints     metric.Int64ObservableCounter
	checkpointTime  metric.Float64ObservableCounter
	heldReaders     metric.Int64ObservableCounter
	holdTime        metric.Float64ObservableCounter
	groupCommits    metric.Int64ObservableCounter
	groupedWrites   metric.Int64ObservableCounter

	replications        metric.Int64ObservableCounter
	replicatedWrites    metric.Int64ObservableCounter
	replicationFailures metric.Int64ObservableCounter
	replicationWait     metric.Float64ObservableCounter
}

func (f *fileInstruments) all() []metric.Observable {
	return []metric.Observable{f.connections, f.turnWaits, f.turnWaitTime, f.turnWaitMax, f.turnQueue,
		f.busyTimeouts, f.refusedUpgrades, f.walSize, f.walUsage, f.walLimit, f.checkpoints,
		f.checkpointTime, f.heldReaders, f.holdTime, f.groupCommits, f.groupedWrites,
		f.replications, f.replicatedWrites, f.replicationFailures, f.replicationWait}
}

type observeOptions struct {
	base, truncated, failed, deferred metric.ObserveOption
}

func (f *fileInstruments) observe(obs metric.Observer, st sqlite3.FileStats, o observeOptions) {
	if st.Connections == 0 {
		return // not a file of the driver's VFS: nothing to report
	}
	obs.ObserveInt64(f.connections, int64(st.Connections), o.base)
	obs.ObserveInt64(f.turnWaits, st.WriteWaits, o.base)
	obs.ObserveFloat64(f.turnWaitTime, st.WriteWaitTime.Seconds(), o.base)
	obs.ObserveFloat64(f.turnWaitMax, st.WriteWaitMax.Seconds(), o.base)
	obs.ObserveInt64(f.turnQueue, int64(st.WriteQueue), o.base)
	obs.ObserveInt64(f.busyTimeouts, st.BusyTimeouts, o.base)
	obs.ObserveInt64(f.refusedUpgrades, st.UpgradeBusy, o.base)
	obs.ObserveInt64(f.walSize, st.WALFileBytes, o.base)
	obs.ObserveInt64(f.walUsage, st.WALBytes, o.base)
	if st.WALBound > 0 {
		obs.ObserveInt64(f.walLimit, st.WALBound, o.base)
	}
	obs.ObserveInt64(f.checkpoints, st.Checkpoints-st.CheckpointsFailed, o.truncated)
	obs.ObserveInt64(f.checkpoints, st.CheckpointsFailed, o.failed)
	obs.ObserveInt64(f.checkpoints, st.CheckpointsDeferred, o.deferred)
	obs.ObserveFloat64(f.checkpointTime, st.CheckpointTime.Seconds(), o.base)
	obs.ObserveInt64(f.heldReaders, st.ReadersHeld, o.base)
	obs.ObserveFloat64(f.holdTime, st.ReadersHeldTime.Seconds(), o.base)
	obs.ObserveInt64(f.groupCommits, st.GroupCommits, o.base)
	obs.ObserveInt64(f.groupedWrites, st.GroupedWrites, o.base)
	obs.ObserveInt64(f.replications, st.Replications, o.base)
	obs.ObserveInt64(f.replicatedWrites, st.ReplicatedWrites, o.base)
	obs.ObserveInt64(f.replicationFailures, st.ReplicationFailures, o.base)
	obs.ObserveFloat64(f.replicationWait, st.ReplicationWaitTime.Seconds(), o.base)
}
