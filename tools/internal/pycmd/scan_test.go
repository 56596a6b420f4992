package pycmd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// found is what a test compares of a Command; why is a substring of Why.
type found struct {
	Line   int
	Call   string
	Text   string
	Hidden bool
	Tool   bool
	why    string
}

func TestScan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		src  string
		want []found
	}{
		{"os.system", "import os\nos.system('rm -rf build')\n", []found{{Line: 2, Call: "os.system", Text: "rm -rf build"}}},
		{"module alias, argv", "import subprocess as sp\nsp.run(['git', 'push', '--force'], check=True)\n",
			[]found{{Line: 2, Call: "subprocess.run", Text: "git push --force"}}},
		{"from-import with as", "from subprocess import run, Popen as P\nrun('ls -la', shell=True)\nP(['echo', 'a b'])\n",
			[]found{{Line: 2, Call: "subprocess.run", Text: "ls -la"}, {Line: 3, Call: "subprocess.Popen", Text: "echo 'a b'"}}},
		{"star import", "from os import *\nsystem('make clean')\n", []found{{Line: 2, Call: "os.system", Text: "make clean"}}},
		{"keyword args", "import subprocess\nsubprocess.check_output(args=['ls', '-1'], text=True)\n",
			[]found{{Line: 2, Call: "subprocess.check_output", Text: "ls -1"}}},
		{"getoutput", "import subprocess\nsubprocess.getoutput('id')\n", []found{{Line: 2, Call: "subprocess.getoutput", Text: "id"}}},
		{"os.popen", "import os\nos.popen('cat /etc/passwd').read()\n", []found{{Line: 2, Call: "os.popen", Text: "cat /etc/passwd"}}},
		{"posix", "import posix\nposix.system('true')\n", []found{{Line: 2, Call: "posix.system", Text: "true"}}},
		{"execl drops arg0", "import os\nos.execl('/bin/sh', 'sh', '-c', 'rm -rf x')\n",
			[]found{{Line: 2, Call: "os.execl", Text: "/bin/sh -c 'rm -rf x'"}}},
		{"execle drops env", "import os\nos.execle('/bin/echo', 'echo', 'hi', {'A': '1'})\n",
			[]found{{Line: 2, Call: "os.execle", Text: "/bin/echo hi"}}},
		{"execv", "import os\nos.execv('/bin/rm', ['rm', '-rf', '/tmp/x'])\n", []found{{Line: 2, Call: "os.execv", Text: "/bin/rm -rf /tmp/x"}}},
		{"spawnlp", "import os\nos.spawnlp(os.P_WAIT, 'rm', 'rm', '-rf', 'y')\n", []found{{Line: 2, Call: "os.spawnlp", Text: "rm -rf y"}}},
		{"spawnv", "import os\nos.spawnv(os.P_NOWAIT, '/bin/ls', ('ls', '-l'))\n", []found{{Line: 2, Call: "os.spawnv", Text: "/bin/ls -l"}}},
		{"posix_spawn", "import os\nos.posix_spawn('/bin/ls', ['ls', '/'], {})\n", []found{{Line: 2, Call: "os.posix_spawn", Text: "/bin/ls /"}}},
		{"pty.spawn", "import pty\npty.spawn(['bash', '-c', 'id'])\npty.spawn('top')\n",
			[]found{{Line: 2, Call: "pty.spawn", Text: "bash -c id"}, {Line: 3, Call: "pty.spawn", Text: "top"}}},
		{"asyncio", "import asyncio\nasync def m():\n    await asyncio.create_subprocess_shell('make clean')\n    await asyncio.create_subprocess_exec('rm', '-rf', p)\n",
			[]found{{Line: 3, Call: "asyncio.create_subprocess_shell", Text: "make clean"},
				{Line: 4, Call: "asyncio.create_subprocess_exec", Text: "rm -rf {p}", Hidden: true, why: "computed at run time"}}},
		{"asyncio.subprocess", "import asyncio.subprocess as asp\nasp.create_subprocess_exec('ls')\nfrom asyncio import subprocess as s2\ns2.create_subprocess_shell('pwd')\n",
			[]found{{Line: 2, Call: "asyncio.subprocess.create_subprocess_exec", Text: "ls"}, {Line: 4, Call: "asyncio.subprocess.create_subprocess_shell", Text: "pwd"}}},
		{"event loop", "loop.subprocess_shell(Proto, 'ls -l')\nloop.subprocess_exec(Proto, 'rm', '-rf', 'z')\n",
			[]found{{Line: 1, Call: "loop.subprocess_shell", Text: "ls -l"}, {Line: 2, Call: "loop.subprocess_exec", Text: "rm -rf z"}}},
		{"hermes_tools.terminal", "from hermes_tools import terminal, read_file\nterminal('git status')\nread_file('a')\nimport hermes_tools as h\nh.terminal(command='ls')\n",
			[]found{{Line: 2, Call: "hermes_tools.terminal", Text: "git status", Tool: true}, {Line: 5, Call: "hermes_tools.terminal", Text: "ls", Tool: true}}},
		{"multi-line call, triple quotes", "import os\nos.system(\n    \"\"\"echo a\necho b\"\"\"\n)\nos.system('x')\n",
			[]found{{Line: 2, Call: "os.system", Text: "echo a\necho b"}, {Line: 6, Call: "os.system", Text: "x"}}},
		{"concatenation", "import os\nos.system('rm ' '-rf ' + 'z')\nos.system(('ls'))\n",
			[]found{{Line: 2, Call: "os.system", Text: "rm -rf z"}, {Line: 3, Call: "os.system", Text: "ls"}}},
		{"prefixes and escapes", "import subprocess, os\nsubprocess.run(b'ls', shell=True)\nos.system(r'echo \\n')\nos.system('echo \\x41\\t\\101')\nos.system(u'\\u00e9')\n",
			[]found{{Line: 2, Call: "subprocess.run", Text: "ls"}, {Line: 3, Call: "os.system", Text: `echo \n`}, {Line: 4, Call: "os.system", Text: "echo A\tA"}, {Line: 5, Call: "os.system", Text: "é"}}},
		{"f-string without fields is literal", "import os\nos.system(f'ls {{x}}')\n", []found{{Line: 2, Call: "os.system", Text: "ls {x}"}}},

		// Hidden: the command is not written as literals.
		{"f-string with a field", "import os\nd = 'x'\nos.system(f\"rm -rf {d}\")\n",
			[]found{{Line: 3, Call: "os.system", Text: "rm -rf {d}", Hidden: true, why: "f-string"}}},
		{"f-string field with nested quotes", "import os\nos.system(f\"echo {d[\"k\"]} done\")\n",
			[]found{{Line: 2, Call: "os.system", Text: `echo {d["k"]} done`, Hidden: true}}},
		{"variable", "import subprocess\ncmd = input()\nsubprocess.run(cmd, shell=True)\n",
			[]found{{Line: 3, Call: "subprocess.run", Hidden: true, why: "built at run time (cmd)"}}},
		{"format", "import os\nos.system('rm -rf {}'.format(p))\n", []found{{Line: 2, Call: "os.system", Hidden: true, why: "built at run time"}}},
		{"list with a variable", "import subprocess\nsubprocess.run(['wc', '-l', f])\n",
			[]found{{Line: 2, Call: "subprocess.run", Text: "wc -l {f}", Hidden: true, why: "computed at run time"}}},
		{"list with a starred element", "import subprocess\nsubprocess.run(['ls', *extra])\n",
			[]found{{Line: 2, Call: "subprocess.run", Text: "ls {*extra}", Hidden: true}}},
		{"unpacked arguments", "import subprocess\nsubprocess.run(*a)\nsubprocess.run(**kw)\n",
			[]found{{Line: 2, Call: "subprocess.run", Hidden: true, why: "unpacked"}, {Line: 3, Call: "subprocess.run", Hidden: true, why: "unpacked"}}},
		{"executable chosen at run time", "import subprocess\nsubprocess.run(['x'], executable=prog)\n",
			[]found{{Line: 2, Call: "subprocess.run", Text: "x", Hidden: true, why: "executable=prog"}}},
		{"literal executable", "import subprocess\nsubprocess.run(['ls', '-l'], executable='/bin/rm')\n",
			[]found{{Line: 2, Call: "subprocess.run", Text: "/bin/rm -l"}}},
		{"function aliased", "import os\ns = os.system\ns('rm -rf /')\n",
			[]found{{Line: 2, Call: "os.system", Hidden: true, why: "without being called"}}},
		{"from-imported function passed as a value", "from subprocess import run\nlist(map(run, cmds))\n",
			[]found{{Line: 2, Call: "subprocess.run", Hidden: true, why: "without being called"}}},
		{"getattr on the module", "import os\ngetattr(os, 'sys' + 'tem')('rm -rf /')\n",
			[]found{{Line: 2, Call: "os", Hidden: true, why: "used as a value"}}},
		{"exec", "exec(\"import os; os.system('x')\")\n", []found{{Line: 1, Call: "exec", Hidden: true, why: "exec()"}}},
		{"eval and compile", "eval(src)\ncode = compile(src, 'f', 'exec')\nre.compile('x')\n",
			[]found{{Line: 1, Call: "eval", Hidden: true}, {Line: 2, Call: "compile", Hidden: true}}},
		{"__import__", "__import__('os').system('x')\n", []found{{Line: 1, Call: "__import__", Hidden: true}}},
		{"globals", "globals()['os'].system('x')\n", []found{{Line: 1, Call: "globals", Hidden: true}}},
		{"sys.modules", "import sys\nsys.modules['os'].system('x')\n", []found{{Line: 2, Call: "sys.modules", Hidden: true}}},
		{"dunders", "().__class__.__base__.__subclasses__()\nf.__globals__['os']\n",
			[]found{{Line: 1, Call: "__subclasses__", Hidden: true}, {Line: 2, Call: "__globals__", Hidden: true}}},
		{"opaque modules", "import ctypes\nfrom importlib import import_module\nimport pickle as p\n",
			[]found{{Line: 1, Call: "import ctypes", Hidden: true, why: "C functions"}, {Line: 2, Call: "import importlib", Hidden: true}, {Line: 3, Call: "import pickle", Hidden: true}}},
		{"a string that never ends", "import os\nos.system('ls')\nos.system(\"abc\n",
			[]found{{Line: 2, Call: "os.system", Text: "ls"}, {Line: 3, Call: "os.system", Hidden: true, why: "without its command"},
				{Line: 3, Call: "syntax", Hidden: true, why: "could not be read"}}},

		// Not commands.
		{"strings and comments", "import os\nprint(\"os.system('rm -rf /')\")\n# os.system('rm -rf /')\nx = 'subprocess.run(\"x\")'\n", nil},
		{"harmless uses of the modules", "import os, subprocess\nos.path.join('a', 'b')\nos.environ.get('X')\ntry:\n    pass\nexcept subprocess.CalledProcessError:\n    pass\n", nil},
		{"names not imported", "def system(c):\n    return c\nsystem('rm -rf /')\nrun('x')\n", nil},
		{"keyword argument named like a function", "from os import system\nf(system=1)\ndef g(system=None):\n    pass\n", nil},
		{"attribute named like a function", "from os import system\nobj.system('x')\n", nil},
		{"yield from and raise from", "def g():\n    yield from it\nraise E from err\n", nil},
		{"os imported again as something else", "import os\nimport json as os\nos.system('x')\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Scan(c.src)
			var g []found
			for i, cmd := range got {
				f := found{Line: cmd.Line, Call: cmd.Call, Text: cmd.Text, Hidden: cmd.Hidden, Tool: cmd.Tool}
				if i < len(c.want) && c.want[i].why != "" {
					if !strings.Contains(cmd.Why, c.want[i].why) {
						t.Errorf("command %d: Why = %q, want it to contain %q", i, cmd.Why, c.want[i].why)
					}
					f.why = c.want[i].why
				}
				if cmd.Hidden && cmd.Why == "" {
					t.Errorf("command %d is hidden without saying why: %+v", i, cmd)
				}
				g = append(g, f)
			}
			if diff := cmp.Diff(c.want, g, cmp.AllowUnexported(found{})); diff != "" {
				t.Errorf("Scan(%q) (-want +got):\n%s", c.src, diff)
			}
		})
	}
}

// TestScanCheckText: the text for the danger check has one shell word per
// value known only at run time, so that a shell parser sees the command's
// shape.
func TestScanCheckText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ src, want string }{
		{"import os\nos.system(f'rm -rf {d} && ls')\n", "rm -rf " + Placeholder + " && ls"},
		{"import subprocess\nsubprocess.run(['rm', '-rf', p, 'x y'])\n", "rm -rf " + Placeholder + " 'x y'"},
		{"import os\nos.system('ls')\n", "ls"},
	} {
		got := Scan(c.src)
		if len(got) != 1 || got[0].Check != c.want {
			t.Errorf("Scan(%q) Check = %+v, want %q", c.src, got, c.want)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"import os\nos.system('x')", "from subprocess import *\nrun(['a', b], shell=True)", "f'{a[\"b\"]:{w}}'",
		"os.execl(", "import os\nos.system(f'''{x}\n''')", "'\\N{DASH}'", "b'\\xff'", "\\\n", "from . import (a,\n b as c,)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, c := range Scan(src) {
			if c.Line < 1 {
				t.Fatalf("Scan(%q): line %d", src, c.Line)
			}
			if c.Hidden && c.Why == "" {
				t.Fatalf("Scan(%q): hidden without a reason: %+v", src, c)
			}
		}
	})
}
