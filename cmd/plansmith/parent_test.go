package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParentProcessNamesTheParent(t *testing.T) {
	id := parentProcess()
	pid, start, _ := strings.Cut(id, "/")
	assert.Equal(t, strconv.Itoa(os.Getppid()), pid)
	if runtime.GOOS == "linux" {
		assert.NotEmpty(t, start, "on Linux the start time tells apart one pid in two containers")
		assert.Equal(t, id, parentProcess(), "the same process, the same name")
	}
}
