package pgstore

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"golang.org/x/text/secure/precis"
)

// scramIterations is PostgreSQL's default scram_iterations.
const scramIterations = 4096

// scramVerifier is the SCRAM-SHA-256 verifier PostgreSQL stores for
// password (RFC 5802 and 7677, in PostgreSQL's text form
// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>), computed
// here with a fresh salt as psql's \password does: the server, its logs
// and pg_stat_statements never see the password itself.
func scramVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("pgstore: salt: %w", err)
	}
	salted, err := pbkdf2.Key(sha256.New, saslPrep(password), salt, scramIterations, sha256.Size)
	if err != nil {
		return "", fmt.Errorf("pgstore: %w", err)
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	serverKey := hmacSHA256(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", scramIterations, b64(salt), b64(storedKey[:]), b64(serverKey)), nil
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// saslPrep normalizes a password as a SCRAM client does before hashing
// it (SASLprep, approximated by PRECIS OpaqueString as pgx does), keeping
// it as it is when it is not valid for the profile, as PostgreSQL does.
// ASCII passwords are unchanged either way.
func saslPrep(password string) string {
	ascii := true
	for i := 0; i < len(password); i++ {
		if password[i] >= 0x80 {
			ascii = false
		}
	}
	if ascii {
		return password
	}
	n, err := precis.OpaqueString.String(password)
	if err != nil {
		return password
	}
	return n
}
