module github.com/plansmith/plansmith

go 1.26.0

require (
	github.com/adrg/frontmatter v0.2.0
	github.com/stretchr/testify v1.12.1
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/BurntSushi/toml v0.3.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	gopkg.in/yaml.v2 v2.3.0 // indirect
)
