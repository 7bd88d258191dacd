package sqlite3

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
)

// The crypt encoders hash a password, optionally salted, for use as SQL
// functions (RegisterFunc) in schemes that store password hashes, as
// mattn/go-sqlite3 offers them. The hash argument is accepted for signature
// compatibility and ignored. Salted forms hash pass followed by salt.

// CryptEncoderSHA1 encodes a password with SHA-1.
func CryptEncoderSHA1(pass []byte, hash any) []byte { return digest(sha1.New(), pass, "") }

// CryptEncoderSHA256 encodes a password with SHA-256.
func CryptEncoderSHA256(pass []byte, hash any) []byte { return digest(sha256.New(), pass, "") }

// CryptEncoderSHA384 encodes a password with SHA-384.
func CryptEncoderSHA384(pass []byte, hash any) []byte { return digest(sha512.New384(), pass, "") }

// CryptEncoderSHA512 encodes a password with SHA-512.
func CryptEncoderSHA512(pass []byte, hash any) []byte { return digest(sha512.New(), pass, "") }

// CryptEncoderSSHA1 encodes a password with SHA-1 and the given salt.
func CryptEncoderSSHA1(salt string) func(pass []byte, hash any) []byte {
	return func(pass []byte, _ any) []byte { return digest(sha1.New(), pass, salt) }
}

// CryptEncoderSSHA256 encodes a password with SHA-256 and the given salt.
func CryptEncoderSSHA256(salt string) func(pass []byte, hash any) []byte {
	return func(pass []byte, _ any) []byte { return digest(sha256.New(), pass, salt) }
}

// CryptEncoderSSHA384 encodes a password with SHA-384 and the given salt.
func CryptEncoderSSHA384(salt string) func(pass []byte, hash any) []byte {
	return func(pass []byte, _ any) []byte { return digest(sha512.New384(), pass, salt) }
}

// CryptEncoderSSHA512 encodes a password with SHA-512 and the given salt.
func CryptEncoderSSHA512(salt string) func(pass []byte, hash any) []byte {
	return func(pass []byte, _ any) []byte { return digest(sha512.New(), pass, salt) }
}

// digest hashes pass then salt, without touching pass's backing array.
func digest(h hash.Hash, pass []byte, salt string) []byte {
	h.Write(pass)
	h.Write([]byte(salt))
	return h.Sum(nil)
}
