package sqlite3

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"testing"
)

func TestCryptEncoders(t *testing.T) {
	pass := []byte("secret")
	salted := []byte("secretpepper")
	s1, s256, s384, s512 := sha1.Sum(pass), sha256.Sum256(pass), sha512.Sum384(pass), sha512.Sum512(pass)
	t1, t256, t384, t512 := sha1.Sum(salted), sha256.Sum256(salted), sha512.Sum384(salted), sha512.Sum512(salted)
	for _, tc := range []struct {
		name string
		got  []byte
		want []byte
	}{
		{"SHA1", CryptEncoderSHA1(pass, nil), s1[:]},
		{"SHA256", CryptEncoderSHA256(pass, nil), s256[:]},
		{"SHA384", CryptEncoderSHA384(pass, nil), s384[:]},
		{"SHA512", CryptEncoderSHA512(pass, nil), s512[:]},
		{"SSHA1", CryptEncoderSSHA1("pepper")(pass, nil), t1[:]},
		{"SSHA256", CryptEncoderSSHA256("pepper")(pass, nil), t256[:]},
		{"SSHA384", CryptEncoderSSHA384("pepper")(pass, nil), t384[:]},
		{"SSHA512", CryptEncoderSSHA512("pepper")(pass, nil), t512[:]},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s: %x, want %x", tc.name, tc.got, tc.want)
		}
	}
	// The salted encoders must not write the salt into the caller's array.
	buf := make([]byte, 6, 64)
	copy(buf, "secret")
	CryptEncoderSSHA256("XYZ")(buf, nil)
	if string(buf[:cap(buf)][6:9]) == "XYZ" {
		t.Fatal("salted encoder wrote into the password's spare capacity")
	}
}
