//go:build cgo

package integration

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

type gormAuthor struct {
	ID        uint
	Email     string `gorm:"uniqueIndex;not null"`
	Name      string
	Active    bool
	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt gorm.DeletedAt `gorm:"index"`
	Books     []gormBook     `gorm:"foreignKey:AuthorID;constraint:OnDelete:CASCADE"`
}

type gormBook struct {
	ID       uint
	AuthorID uint `gorm:"not null"`
	Title    string
}

// gormAuthorV2 is the same table one migration later: a new column.
type gormAuthorV2 struct {
	ID        uint
	Email     string `gorm:"uniqueIndex;not null"`
	Name      string
	Active    bool
	Bio       string `gorm:"default:''"`
	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt gorm.DeletedAt `gorm:"index"`
}

func (gormAuthor) TableName() string   { return "authors" }
func (gormAuthorV2) TableName() string { return "authors" }
func (gormBook) TableName() string     { return "books" }

func openGorm(t *testing.T) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(sqlite.Open(dsn(t, "_fk=1")), &gorm.Config{
		TranslateError: true,
		Logger:         logger.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	if err := db.AutoMigrate(&gormAuthor{}, &gormBook{}); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	return db
}

func TestGormMigrate(t *testing.T) {
	db := openGorm(t)
	m := db.Migrator()
	for _, table := range []string{"authors", "books"} {
		if !m.HasTable(table) {
			t.Errorf("table %s missing after AutoMigrate", table)
		}
	}
	if !m.HasIndex(&gormAuthor{}, "idx_authors_email") {
		t.Error("unique index on email missing")
	}
	// Migrating again is a no-op; migrating to V2 adds the column, which the
	// migrator finds through the driver's column metadata.
	if err := db.AutoMigrate(&gormAuthor{}); err != nil {
		t.Fatalf("second AutoMigrate: %v", err)
	}
	if err := db.AutoMigrate(&gormAuthorV2{}); err != nil {
		t.Fatalf("AutoMigrate V2: %v", err)
	}
	if !m.HasColumn(&gormAuthorV2{}, "bio") {
		t.Fatal("column bio missing after AutoMigrate V2")
	}
	cols, err := m.ColumnTypes(&gormAuthorV2{})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, c := range cols {
		types[c.Name()] = c.DatabaseTypeName()
	}
	if types["email"] != "text" || types["active"] != "numeric" || types["created_at"] != "datetime" {
		t.Errorf("column types as GORM sees them: %v", types)
	}
}

func TestGormCRUD(t *testing.T) {
	db := openGorm(t)
	before := time.Now().Add(-time.Second)
	ada := gormAuthor{Email: "ada@example.com", Name: "Ada", Active: true,
		Books: []gormBook{{Title: "Notes"}, {Title: "Sketch of the Analytical Engine"}}}
	if err := db.Create(&ada).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if ada.ID == 0 || ada.Books[1].ID == 0 || ada.Books[1].AuthorID != ada.ID {
		t.Fatalf("ids not filled in: %+v", ada)
	}

	var got gormAuthor
	if err := db.Preload("Books").First(&got, "email = ?", "ada@example.com").Error; err != nil {
		t.Fatalf("First: %v", err)
	}
	if got.Name != "Ada" || !got.Active || len(got.Books) != 2 {
		t.Fatalf("read back %+v", got)
	}
	if got.CreatedAt.Before(before) || got.CreatedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("CreatedAt %v is not about now", got.CreatedAt)
	}

	if err := db.Model(&got).Updates(map[string]any{"name": "Ada Lovelace", "active": false}).Error; err != nil {
		t.Fatalf("Updates: %v", err)
	}
	var n int64
	if err := db.Model(&gormAuthor{}).Where("name = ? AND active = ?", "Ada Lovelace", false).Count(&n).Error; err != nil || n != 1 {
		t.Fatalf("Count after update: %d, %v", n, err)
	}

	// Soft delete hides the row; Unscoped still sees it; a hard delete
	// cascades to the books through the foreign key (_fk=1).
	if err := db.Delete(&got).Error; err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := db.First(&gormAuthor{}, got.ID).Error; !errors.Is(err, gorm.ErrRecordNotFound) {
		t.Fatalf("First after soft delete: %v, want ErrRecordNotFound", err)
	}
	if err := db.Unscoped().First(&gormAuthor{}, got.ID).Error; err != nil {
		t.Fatalf("Unscoped First: %v", err)
	}
	if err := db.Unscoped().Delete(&gormAuthor{}, got.ID).Error; err != nil {
		t.Fatalf("hard delete: %v", err)
	}
	if err := db.Model(&gormBook{}).Count(&n).Error; err != nil || n != 0 {
		t.Fatalf("books after cascade: %d, %v", n, err)
	}
}

func TestGormTransaction(t *testing.T) {
	db := openGorm(t)
	errStop := errors.New("stop")
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&gormAuthor{Email: "rolled@back", Name: "x"}).Error; err != nil {
			return err
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Transaction: %v", err)
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&gormAuthor{Email: "kept@example.com", Name: "kept"}).Error; err != nil {
			return err
		}
		// A nested transaction is a SAVEPOINT; its failure rolls back only itself.
		_ = tx.Transaction(func(tx2 *gorm.DB) error {
			tx2.Create(&gormAuthor{Email: "inner@example.com", Name: "inner"})
			return errStop
		})
		return nil
	})
	if err != nil {
		t.Fatalf("Transaction: %v", err)
	}
	var emails []string
	if err := db.Model(&gormAuthor{}).Order("email").Pluck("email", &emails).Error; err != nil {
		t.Fatal(err)
	}
	if len(emails) != 1 || emails[0] != "kept@example.com" {
		t.Fatalf("rows after transactions: %v", emails)
	}
}

// TestGormTranslateError: with TranslateError, GORM's SQLite dialector reads
// the error's ExtendedCode (through JSON) and maps constraint violations to
// its own errors.
func TestGormTranslateError(t *testing.T) {
	db := openGorm(t)
	if err := db.Create(&gormAuthor{Email: "dup@example.com"}).Error; err != nil {
		t.Fatal(err)
	}
	err := db.Create(&gormAuthor{Email: "dup@example.com"}).Error
	if !errors.Is(err, gorm.ErrDuplicatedKey) {
		t.Fatalf("duplicate email: %v, want gorm.ErrDuplicatedKey", err)
	}
	err = db.Create(&gormBook{AuthorID: 999, Title: "orphan"}).Error
	if !errors.Is(err, gorm.ErrForeignKeyViolated) {
		t.Fatalf("unknown author: %v, want gorm.ErrForeignKeyViolated", err)
	}
}

type gormStock struct {
	ID    uint
	Count int
}

type gormOrder struct {
	ID      uint
	StockID uint
}

func (gormStock) TableName() string { return "stock" }
func (gormOrder) TableName() string { return "orders" }

// readmeUsageDSN is the DSN of the README's Usage snippet, the one a new user
// copies first, for a file in the test's temporary directory.
func readmeUsageDSN(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "\n## Usage\n")
	if i < 0 {
		t.Fatal("README.md has no Usage section")
	}
	m := regexp.MustCompile(`sql\.Open\("sqlite3", "file:app\.db(\?[^"]*)"\)`).FindStringSubmatch(readme[i:])
	if m == nil {
		t.Fatal("README.md's Usage opens no file:app.db")
	}
	return "file:" + filepath.ToSlash(filepath.Join(t.TempDir(), "app.db")) + m[1]
}

// A GORM service built on the README's first DSN, under load: goroutines
// whose transactions read a row and then write it (GORM's usual shape)
// never fail with "database is locked", and no order is lost. With a
// deferred BEGIN (the README's Usage before issue 32) about half of them
// failed: SQLite refuses the read-to-write upgrade at once, whatever the
// busy timeout.
func TestGormReadmeDSNUnderLoad(t *testing.T) {
	db, err := gorm.Open(sqlite.Open(readmeUsageDSN(t)), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	defer sqlDB.Close()
	if err := db.AutoMigrate(&gormStock{}, &gormOrder{}); err != nil {
		t.Fatal(err)
	}
	const workers, each, initial = 16, 20, 1000
	if err := db.Create(&gormStock{ID: 1, Count: initial}).Error; err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				errs <- db.Transaction(func(tx *gorm.DB) error {
					var s gormStock
					if err := tx.First(&s, 1).Error; err != nil {
						return err
					}
					if err := tx.Model(&s).Update("count", s.Count-1).Error; err != nil {
						return err
					}
					return tx.Create(&gormOrder{StockID: s.ID}).Error
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			if failed == 0 {
				t.Errorf("transaction failed: %v", err)
			}
			failed++
		}
	}
	var s gormStock
	var orders int64
	if err := db.First(&s, 1).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Model(&gormOrder{}).Count(&orders).Error; err != nil {
		t.Fatal(err)
	}
	if failed != 0 || orders != workers*each || s.Count != initial-workers*each {
		t.Errorf("%d of %d transactions failed; %d orders, stock %d: want 0 failed, %d orders, stock %d",
			failed, workers*each, orders, s.Count, workers*each, initial-workers*each)
	}
}
