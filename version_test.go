package plansmith

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormatVersion(t *testing.T) {
	noInfo := func() (*debug.BuildInfo, bool) { return nil, false }
	info := func(mainVersion string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Version: mainVersion}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	plugin := func() string { return "0.1.0" }
	cases := []struct {
		name            string
		stamped, commit string
		info            func() (*debug.BuildInfo, bool)
		want            string
	}{
		{"stamped by make", "0.2.0", "abc1234", noInfo, "0.2.0+abc1234"},
		{"stamped version, commit from the checkout", "0.2.0", "", info("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "false"), "0.2.0+0123456"},
		{"go build in a modified checkout", "", "", info("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "true"), "0.1.0+0123456-dirty"},
		{"go install of a release", "", "", info("v0.1.0"), "0.1.0+v0.1.0"},
		{"go install of a commit", "", "", info("v0.0.0-20261123120000-0123456789ab"), "0.1.0+0123456"},
		{"go test (no VCS, no module version)", "", "", info("(devel)"), "0.1.0"},
		{"no build info", "", "", noInfo, "0.1.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, formatVersion(c.stamped, c.commit, plugin, c.info))
		})
	}
	assert.Equal(t, "unknown", formatVersion("", "", func() string { return "" }, noInfo))
}

func TestPluginVersionIsEmbedded(t *testing.T) {
	assert.Regexp(t, `^\d+\.\d+\.\d+`, pluginVersion(), "the embedded .claude-plugin/plugin.json names the version")
}
