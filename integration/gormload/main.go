// Command gormload runs a GORM orders service under load on one WAL file and
// reports what its users and its operator see: how many order transactions
// failed and why, the tail of reads and orders, and the driver's FileStats
// (the WAL's largest size against the bound, the bound's checkpoints, busy
// timeouts, refused upgrades).
//
//	cd integration && go run ./gormload -duration 20s -clients 48
//	cd integration && go run ./gormload -duration 20s -clients 48 -dsn '_txlock=immediate'
//
// An order is the transaction an ORM writes by default: it reads the product
// (its stock), then inserts the order and updates the stock. Begun deferred
// (the default `_txlock`), such a transaction holds only a read lock until
// its first write; when another connection committed in between, SQLite must
// refuse the upgrade at once (waiting could not help: the snapshot it read is
// gone), so a share of orders fail with "database is locked" on every driver.
// The driver cannot change that, but it can say so (the error's message,
// FileStats.UpgradeBusy) and keep the WAL near its bound while it happens.
// With `_txlock=immediate` the same service has no such failures.
//
// -think adds a client's pause between requests (a network's round trip);
// without it, the clients whose orders fail retry at once, and 48 goroutines
// on two cores leave each other unscheduled for up to a second.
//
// It exits with status 1 when a request failed with anything but ErrBusy,
// the refused upgrades (ErrBusy naming _txlock=immediate) outnumber
// FileStats.UpgradeBusy, the other busy failures outnumber
// FileStats.BusyTimeouts, or (with -maxwal) the WAL file grew past -maxwal.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	// go.mod replaces mattn's path with the driver in the repository root.
	sqlite3 "github.com/mattn/go-sqlite3"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

type product struct {
	ID    uint
	Name  string
	Stock int
}

type order struct {
	ID        uint
	Customer  int `gorm:"index"`
	ProductID uint
	Qty       int
	Note      string
	CreatedAt time.Time
}

func main() {
	duration := flag.Duration("duration", 20*time.Second, "how long the clients run")
	clients := flag.Int("clients", 48, "client goroutines")
	orderShare := flag.Float64("orders", 0.3, "share of a client's requests that are orders (the rest read)")
	extra := flag.String("dsn", "", "parameters appended to the base DSN (file:…?_journal_mode=WAL&_busy_timeout=5000&_fk=1)")
	think := flag.Duration("think", 0, "a client's pause between requests (a network's round trip; 0: none)")
	maxWAL := flag.Int64("maxwal", 0, "fail when the WAL file grows past this many bytes (0: report only)")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	flag.Parse()
	if err := run(*duration, *clients, *orderShare, *think, *extra, *maxWAL, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "gormload:", err)
		os.Exit(1)
	}
}

func run(duration time.Duration, clients int, orderShare float64, think time.Duration, extra string, maxWAL int64, keep bool) error {
	dir, err := os.MkdirTemp("", "gormload")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	path := filepath.Join(dir, "shop.db")
	dsn := "file:" + path + "?_journal_mode=WAL&_busy_timeout=5000&_fk=1"
	if extra != "" {
		dsn += "&" + extra
	}
	gdb, err := gorm.Open(sqlite.Open(dsn), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	db, err := gdb.DB()
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(clients)
	db.SetMaxIdleConns(clients)
	if err := gdb.AutoMigrate(&product{}, &order{}); err != nil {
		return err
	}
	const products = 200
	ps := make([]product, products)
	for i := range ps {
		ps[i] = product{Name: fmt.Sprintf("product %d", i), Stock: 1 << 30}
	}
	if err := gdb.CreateInBatches(ps, 100).Error; err != nil {
		return err
	}

	var (
		orders, ordersOK, reads atomic.Int64
		mu                      sync.Mutex
		failures                = map[string]int{}
		badErr                  error
		orderLat, readLat       []time.Duration
		walMax                  atomic.Int64
	)
	note := strings.Repeat("x", 400)
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()

	// The WAL's size, sampled as an operator's dashboard would.
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > walMax.Load() {
				walMax.Store(fi.Size())
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()

	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			var myOrders, myReads []time.Duration
			for ctx.Err() == nil {
				if think > 0 {
					time.Sleep(think)
				}
				start := time.Now()
				if rng.Float64() < orderShare {
					orders.Add(1)
					pid := uint(rng.IntN(products) + 1)
					err := gdb.Transaction(func(tx *gorm.DB) error {
						var p product
						if err := tx.First(&p, pid).Error; err != nil {
							return err
						}
						if err := tx.Create(&order{Customer: c, ProductID: p.ID, Qty: 1, Note: note}).Error; err != nil {
							return err
						}
						return tx.Model(&p).Update("stock", p.Stock-1).Error
					})
					myOrders = append(myOrders, time.Since(start))
					if err == nil {
						ordersOK.Add(1)
						continue
					}
					kind := classify(err)
					mu.Lock()
					failures[kind]++
					if badErr == nil && kind == "other" {
						badErr = err
					}
					mu.Unlock()
					continue
				}
				reads.Add(1)
				var recent []order
				if err := gdb.Where("customer = ?", c).Order("id desc").Limit(20).Find(&recent).Error; err != nil {
					mu.Lock()
					failures["read: "+err.Error()]++
					if badErr == nil {
						badErr = err
					}
					mu.Unlock()
				}
				myReads = append(myReads, time.Since(start))
			}
			mu.Lock()
			orderLat = append(orderLat, myOrders...)
			readLat = append(readLat, myReads...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	<-sampled
	st, err := sqlite3.Stats(context.Background(), db)
	if err != nil {
		return err
	}

	failed := orders.Load() - ordersOK.Load()
	fmt.Printf("dsn: %s\n", dsn[strings.Index(dsn, "?")+1:])
	fmt.Printf("clients %d, think %v, %v: orders %d (ok %d, failed %d = %.1f%%), reads %d\n",
		clients, think, duration, orders.Load(), ordersOK.Load(), failed, 100*float64(failed)/float64(max(orders.Load(), 1)), reads.Load())
	for k, n := range failures {
		fmt.Printf("  failure %6d × %s\n", n, k)
	}
	fmt.Printf("order p50 %v p99 %v max %v; read p50 %v p99 %v max %v\n",
		pct(orderLat, 50), pct(orderLat, 99), pct(orderLat, 100), pct(readLat, 50), pct(readLat, 99), pct(readLat, 100))
	fmt.Printf("WAL file max %.1f MiB (bound %.1f MiB); stats: BusyTimeouts %d, UpgradeBusy %d, WriteWaits %d (max %v), Checkpoints %d (failed %d, deferred %d), ReadersHeld %d (max %v)\n",
		float64(walMax.Load())/(1<<20), float64(st.WALBound)/(1<<20), st.BusyTimeouts, st.UpgradeBusy,
		st.WriteWaits, st.WriteWaitMax.Round(time.Microsecond), st.Checkpoints, st.CheckpointsFailed, st.CheckpointsDeferred,
		st.ReadersHeld, st.ReadersHeldMax.Round(time.Microsecond))

	var problems []string
	if badErr != nil {
		problems = append(problems, fmt.Sprintf("an error that does not explain itself: %v", badErr))
	}
	if n := int64(failures[upgradeKind]); n > st.UpgradeBusy {
		problems = append(problems, fmt.Sprintf("%d orders failed as refused upgrades but FileStats.UpgradeBusy is %d", n, st.UpgradeBusy))
	}
	if n := int64(failures[timeoutKind]); n > st.BusyTimeouts {
		problems = append(problems, fmt.Sprintf("%d orders failed after the busy timeout but FileStats.BusyTimeouts is %d", n, st.BusyTimeouts))
	}
	if maxWAL > 0 && walMax.Load() > maxWAL {
		problems = append(problems, fmt.Sprintf("WAL file reached %d bytes, over -maxwal %d", walMax.Load(), maxWAL))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

const (
	upgradeKind = "refused upgrade (ErrBusy, the message names _txlock=immediate)"
	timeoutKind = "busy timeout (ErrBusy, database is locked)"
)

// classify sorts an order's failure into what a user can act on: an upgrade
// SQLite had to refuse (its message says why and names _txlock=immediate), a
// wait that ran out of busy timeout, or anything else (a defect here).
func classify(err error) string {
	if !errors.Is(err, sqlite3.ErrBusy) {
		return "other"
	}
	if strings.Contains(err.Error(), "_txlock=immediate") {
		return upgradeKind
	}
	return timeoutKind
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := (len(d) - 1) * p / 100
	return d[i].Round(10 * time.Microsecond)
}
