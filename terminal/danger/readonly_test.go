package danger

import "testing"

// TestReadOnly: plan mode runs only the commands the check classifies
// read-only. Every command a user would run to look around is one; every
// command that writes a file, runs code, changes the environment of what
// runs or cannot be read is not, however it is disguised.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	readOnly := []string{
		"ls -la",
		"cat go.mod",
		"head -n 20 main.go | grep func",
		"grep -rn 'TODO' . 2>/dev/null",
		"rg --files | wc -l",
		"find . -name '*.go' -type f",
		"git status",
		"git log --oneline -5",
		"git diff HEAD~1 -- main.go",
		"git -C sub show HEAD:go.mod",
		"git branch -a",
		"git branch --list 'feat*'",
		"git tag",
		"git remote -v",
		"git config --get user.name",
		"git stash list",
		"go version",
		"go env GOPATH",
		"go list ./...",
		"pwd && ls",
		"cd src; ls",
		"echo hello",
		"for f in *.go; do wc -l \"$f\"; done",
		"if [ -f go.mod ]; then cat go.mod; fi",
		"cat $(ls *.md)",
		"ls >&2",
		"find . -name '*.go' | xargs grep -l main",
		"sort -r names.txt",
		"timeout 5 cat big.log",
		"/usr/bin/git status",
		"uniq names.txt",
		"diff a.txt b.txt",
	}
	for _, c := range readOnly {
		if v := Check(c); !v.ReadOnly {
			t.Errorf("Check(%q).ReadOnly = false (%+v), want true", c, v)
		}
	}
	notReadOnly := []string{
		"",
		"rm a.txt",
		"touch x",
		"mkdir build",
		"echo hi > out.txt",
		"echo hi >> out.txt",
		"cat a > b",
		"ls | tee list.txt",
		"cp a b",
		"mv a b",
		"sed -i 's/a/b/' f",
		"sed -n 1p f", // sed can write (w) and run (e); not on the list
		"awk '{print}' f",
		"python3 -c 'print(1)'",
		"bash -c 'ls'",
		"sh script.sh",
		"./ls",
		"make",
		"go build ./...",
		"go test ./...",
		"go env -w GOFLAGS=-x",
		"go list -toolexec=/tmp/x ./...",
		"npm install",
		"git commit -m x",
		"git checkout main",
		"git branch new-feature",
		"git branch -d old",
		"git tag v1.0",
		"git stash",
		"git config user.name x",
		"git -c diff.external=/tmp/x diff",
		"git --exec-path=/tmp diff",
		"git diff --output=patch.txt",
		"git grep -Ovim foo",
		"git push",
		"git reflog expire --all",
		"find . -delete",
		"find . -name x -exec rm {} +",
		"find . -fprint out.txt",
		"fd -x rm",
		"rg --pre ./decode foo",
		"sort -o out.txt in.txt",
		"sort -ro out.txt in.txt",
		"uniq in.txt out.txt",
		"tree -o out.txt",
		"date -s 2020-01-01",
		"hostname evil",
		"time -o t.txt ls",
		"xargs rm",
		"sudo ls",
		"env X=1 ls",
		"GIT_EXTERNAL_DIFF=/tmp/x git diff",
		"export PATH=/tmp:$PATH; ls",
		"PATH=/tmp:$PATH; ls",
		"ls $(rm -rf build)",
		"echo $(touch x)",
		"cat <(touch x)",
		"$CMD",
		"git $SUB",
		"sort $FLAGS in.txt",
		"alias ls='rm -rf x'; ls",
		"f() { rm x; }; f",
		"curl https://example.com",
		"eval ls",
		"ls; rm x",
		"ls && rm x",
		"ls | sh",
		"rm -rf /",
	}
	for _, c := range notReadOnly {
		if v := Check(c); v.ReadOnly {
			t.Errorf("Check(%q).ReadOnly = true, want false", c)
		}
	}
}

// TestReadOnlyNeverDangerous: a command the check asks about is never
// read-only, whatever it runs.
func TestReadOnlyNeverDangerous(t *testing.T) {
	t.Parallel()
	for _, row := range dangerousTable {
		if v := Check(row.cmd); v.ReadOnly {
			t.Errorf("Check(%q) is dangerous (%s) and read-only", row.cmd, row.key)
		}
	}
}
