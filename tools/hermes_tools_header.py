"""Auto-generated hermes-acp tools RPC stubs (execute_code)."""
import json, os, socket, shlex, threading, time

_sock = None
# The tools token: in a file beside this module that only this script's
# user can read, removed as soon as it is read (it is in no environment).
_token_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".rpc-token")
try:
    with open(_token_path, encoding="utf-8") as _f:
        _token = _f.read().strip()
    os.unlink(_token_path)
except OSError:
    _token = ""
# One connection per script, no request ids: serialise the whole round
# trip so that threads do not read each other's answers.
_call_lock = threading.Lock()


def json_parse(text: str):
    """Parse JSON tolerant of control characters and UTF-8 BOM (strict=False).
    Use this instead of json.loads() when parsing output from terminal()
    or web_extract() that may contain raw tabs/newlines in strings."""
    if isinstance(text, str) and text.startswith("\ufeff"):
        text = text[1:]
    return json.loads(text, strict=False)


def shell_quote(s: str) -> str:
    """Shell-escape a string for safe interpolation into commands.
    Use this when inserting dynamic content into terminal() commands:
        terminal(f"echo {shell_quote(user_input)}")
    """
    return shlex.quote(s)


def retry(fn, max_attempts=3, delay=2):
    """Retry a function up to max_attempts times with exponential backoff.
    Use for transient failures (network errors, API rate limits):
        result = retry(lambda: terminal("gh issue list ..."))
    """
    last_err = None
    for attempt in range(max_attempts):
        try:
            return fn()
        except Exception as e:
            last_err = e
            if attempt < max_attempts - 1:
                time.sleep(delay * (2 ** attempt))
    raise last_err


def _connect():
    """Connect to the agent's socket (HERMES_RPC_SOCKET)."""
    global _sock
    if _sock is None:
        _sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _sock.connect(os.environ["HERMES_RPC_SOCKET"])
        _sock.settimeout(None)
    return _sock


def _call(tool_name, args):
    """Send a tool call to the agent and return the parsed result."""
    request = json.dumps({
        "tool": tool_name,
        "args": args,
        "token": _token,
    }) + "\n"
    with _call_lock:
        conn = _connect()
        conn.sendall(request.encode())
        buf = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                raise RuntimeError("Agent process disconnected")
            buf += chunk
            if buf.endswith(b"\n"):
                break
    result = json.loads(buf.decode().strip())
    if isinstance(result, str):
        try:
            return json.loads(result)
        except (json.JSONDecodeError, TypeError):
            return result
    return result

