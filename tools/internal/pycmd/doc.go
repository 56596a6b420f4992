// Package pycmd finds, by a static look at a Python script's source, the
// commands the script would run: every shell string or argument vector it
// passes to os.system, os.popen, subprocess.* (run, call, check_call,
// check_output, Popen, getoutput, getstatusoutput), os.exec*, os.spawn*,
// os.posix_spawn*, pty.spawn, asyncio's create_subprocess_shell/_exec and
// an event loop's subprocess_shell/_exec, and the commands it sends through
// hermes_tools.terminal. A command written as literal strings is returned
// as the command line it runs; anything else is Hidden: the command is
// built at run time (a variable, an f-string with fields, a computed list),
// one of those functions is used other than by a direct call (aliased,
// passed as a value), a module that runs commands is used other than by
// name (getattr(os, …), sys.modules), or the script runs code the look
// cannot read (exec, eval, compile, __import__, importlib, ctypes, pickle,
// …). A caller that must not run unknown commands treats Hidden as "ask".
//
// It is a tokenizer with import tracking, not a Python interpreter: it
// knows the names a script binds with import statements (import os as o,
// from subprocess import run as r, from os import *), not what assignments
// or function arguments hold at run time — which is why every use it cannot
// resolve is reported as Hidden rather than ignored. It is pure and never
// panics (fuzzed).
package pycmd
