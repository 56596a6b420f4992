package danger

import "testing"

// TestNeeds: the programs whose job is the network (and signing in) are
// named with their needs, behind wrappers and inside bash -c too; local
// work, loopback URLs and prose are not.
func TestNeeds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd  string
		want Needs
	}{
		{"npm install", netOnly},
		{"npm test", Needs{}},
		{"yarn", netOnly},
		{"pnpm publish --access public", netCreds},
		{"go mod download", netOnly},
		{"go mod tidy && go test ./...", netOnly},
		{"go mod edit -replace x=y", Needs{}},
		{"go test ./...", Needs{}},
		{"go install golang.org/x/tools/cmd/stringer@latest", netOnly},
		{"go install ./cmd/x", Needs{}},
		{"pip install -r requirements.txt", netOnly},
		{"python3 -m pip install requests", netOnly},
		{"python3 -m pytest", Needs{}},
		{"git status", Needs{}},
		{"git -C sub fetch origin", netOnly},
		{"git push origin main", netCreds},
		{"git clone git@github.com:o/r.git", netCreds},
		{"git clone https://github.com/o/r", netOnly},
		{"git remote add origin x", Needs{}},
		{"git remote update", netOnly},
		{`git commit -m "npm install later"`, Needs{}},
		{"curl -fsS https://example.com/x", netOnly},
		{"curl http://127.0.0.1:8080/health", Needs{}},
		{"curl localhost:3000", Needs{}},
		{"wget example.org/file.tgz", netOnly},
		{"ssh host uptime", netCreds},
		{"rsync -a build/ host:/srv/", netCreds},
		{"rsync -a build/ /tmp/out/", Needs{}},
		{"sudo apt-get install -y jq", netOnly},
		{"bash -c 'gh pr list'", netCreds},
		{"timeout 30 cargo fetch", netOnly},
		{"make build", Needs{}},
	} {
		if got := Check(tc.cmd).Needs; got != tc.want {
			t.Errorf("Check(%q).Needs = %+v, want %+v", tc.cmd, got, tc.want)
		}
	}
}
