package policy

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// A project's policy file widens the policy, and a repository can carry
// one: a clone's "allow: [bash]" would let anything run. So the file
// counts only once the user has read it and said so (plansmith policy
// trust), for that project and that content: TrustFile, under $HOME, lists
// the approved files, a line each: the SHA-256 of the content and the
// project's folder. Editing the file needs a new approval.

// TrustFile lists the policy files the user approved, relative to $HOME.
const TrustFile = ".claude/plansmith/trusted-policies"

// UntrustedError is LoadConfig's answer for a policy file the user has not
// approved as it stands: its entries are not used.
type UntrustedError struct {
	Path string // the policy file
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("%s is not trusted, so its entries are not used: read it, then run `plansmith policy trust` in the project to use them", e.Path)
}

// LoadConfig reads projectDir's policy file (ConfigFile). A missing file is
// an empty Config; a malformed one is an error naming the file and line;
// one the user has not approved as it stands (see TrustFile, home being
// $HOME) is an empty Config and an *UntrustedError.
func LoadConfig(projectDir, home string) (Config, error) {
	path, data, err := readConfig(projectDir)
	if err != nil || data == nil {
		return Config{}, err
	}
	cfg, err := parseConfig(path, data)
	if err != nil {
		return Config{}, err
	}
	if !trusted(home, projectDir, data) {
		return Config{}, &UntrustedError{Path: path}
	}
	return cfg, nil
}

// Trust approves projectDir's policy file as it stands for home's user and
// returns what it allows. A missing or malformed file is an error.
func Trust(projectDir, home string) (Config, error) {
	path, data, err := readConfig(projectDir)
	if err != nil {
		return Config{}, err
	}
	if data == nil {
		return Config{}, fmt.Errorf("%s does not exist: there is nothing to trust", path)
	}
	cfg, err := parseConfig(path, data)
	if err != nil {
		return Config{}, err
	}
	return cfg, Approve(home, projectDir, data)
}

// Trusted reports whether the user (home) approved data as a file of
// projectDir's that a repository could carry to loosen plansmith: the
// policy file, or a settings file that switches the plan-mode gate off.
func Trusted(home, projectDir string, data []byte) bool { return trusted(home, projectDir, data) }

// Approve records the user's approval of data as a file of projectDir's in
// home's TrustFile.
func Approve(home, projectDir string, data []byte) error {
	if trusted(home, projectDir, data) {
		return nil
	}
	if home == "" || !filepath.IsAbs(home) {
		return errors.New("$HOME is not set to an absolute folder: there is nowhere to keep the approval")
	}
	if strings.ContainsAny(projectDir, "\n\r") {
		return fmt.Errorf("the project's folder %q has a line break in its name, which the list of approvals cannot hold", projectDir)
	}
	list := filepath.Join(home, TrustFile)
	if err := os.MkdirAll(filepath.Dir(list), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(list, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("%s %s\n", digest(data), filepath.Clean(projectDir))
	if plainfile.EndsMidLine(f) {
		// An earlier approval a full disk cut short: glued to it, this
		// one would never match, and the file would stay untrusted after
		// `plansmith policy trust` said it was trusted.
		line = "\n" + line
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readConfig reads projectDir's policy file: nil data when there is none.
func readConfig(projectDir string) (path string, data []byte, err error) {
	path = filepath.Join(projectDir, ConfigFile)
	// A repository can make the file a link to a pipe or a device.
	data, err = plainfile.Read(path, 1<<20)
	if plainfile.IsNotExist(err) {
		return path, nil, nil
	}
	if err != nil {
		return path, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return path, data, nil
}

// trusted reports whether home's TrustFile approves data as projectDir's
// policy file. A list that cannot be read approves nothing.
func trusted(home, projectDir string, data []byte) bool {
	if home == "" || !filepath.IsAbs(home) {
		return false
	}
	list, err := os.ReadFile(filepath.Join(home, TrustFile))
	if err != nil {
		return false
	}
	want := digest(data) + " " + filepath.Clean(projectDir)
	sc := bufio.NewScanner(bytes.NewReader(list))
	for sc.Scan() {
		if strings.TrimRight(sc.Text(), "\r") == want {
			return true
		}
	}
	return false
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
