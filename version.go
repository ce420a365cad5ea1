package plansmith

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"sync"
)

// Stamped at build time (make build, make dist, GoReleaser, the launcher's
// source build) with
//
//	-ldflags "-X github.com/plansmith/plansmith.version=0.1.0 -X github.com/plansmith/plansmith.commit=f496982"
//
// version is the plugin version from .claude-plugin/plugin.json and commit
// the source commit. A build without them (go install, go build, go test)
// falls back to the embedded plugin.json and the module's build info.
var (
	version string
	commit  string
)

var versionOnce = sync.OnceValue(func() string {
	return formatVersion(version, commit, pluginVersion, debug.ReadBuildInfo)
})

// Version is plansmith's one version string, e.g. "0.1.0+f496982": the
// plugin version, then the commit it was built from when known. `plansmith
// version`, `plansmith doctor` and the saved plan's frontmatter all show it.
func Version() string { return versionOnce() }

// pluginVersion reads "version" from the embedded .claude-plugin/plugin.json.
func pluginVersion() string {
	data, err := Plugin.ReadFile(".claude-plugin/plugin.json")
	if err != nil {
		return ""
	}
	var m struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	return m.Version
}

func formatVersion(stamped, stampedCommit string, plugin func() string, info func() (*debug.BuildInfo, bool)) string {
	v, c := stamped, stampedCommit
	if v == "" {
		v = plugin()
	}
	if v == "" {
		v = "unknown"
	}
	if c == "" {
		c = buildCommit(info)
	}
	if c == "" {
		return v
	}
	return v + "+" + c
}

// buildCommit finds the commit in the build info: the VCS revision a
// `go build` in a checkout records, else the module version a `go install
// module@version` records (a tag such as v0.1.0, or a pseudo-version that
// ends in the commit).
func buildCommit(info func() (*debug.BuildInfo, bool)) string {
	bi, ok := info()
	if !ok || bi == nil {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 7 {
			rev = rev[:7]
		}
		if dirty {
			rev += "-dirty"
		}
		return rev
	}
	mv := bi.Main.Version
	if mv == "" || mv == "(devel)" {
		return ""
	}
	// A pseudo-version (v0.0.0-20261123120000-0123456789ab) ends in the commit.
	if i := strings.LastIndexByte(mv, '-'); i >= 0 && len(mv)-i-1 == 12 && isHex(mv[i+1:]) {
		return mv[i+1 : i+8]
	}
	return mv // a release tag, such as v0.1.0
}

func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdef") == ""
}
