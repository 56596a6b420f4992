"""hermes-acp's execute_code relay, run on a terminal backend (a Docker
container, an SSH host) beside the script, over the backend's own exec
stdio: it makes the script's private folder, listens on the tool socket
there, and relays each call to the agent and each answer back.

Protocol, one line each way (the agent speaks on this program's stdin,
it answers on stdout; stderr is discarded):
  agent -> relay  {"files": {name: text}}   first: the folder's files
  relay -> agent  R <folder as JSON>         the folder and socket are ready
  agent -> relay  P <pid> | N                the script's process (check peers
                                             against it) | no check (a container)
  relay -> agent  C <conn> <request line>    a call on connection <conn>
  agent -> relay  A <conn> <answer line>     its answer
  agent -> relay  E                          the script ended
  relay -> agent  S <JSON {"text", "truncated"}>  the script's stderr
  relay -> agent  X                          the folder is removed; it exits
"""
import json, os, shutil, socket, struct, sys, tempfile, threading

REFUSED = ("Refused: this socket serves only the execute_code script that it was made for "
           "(and the processes it started).")
STDERR_KEEP = 40000  # bytes from each end of the script's stderr

out_lock = threading.Lock()


def send(line):
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def peer_pid(conn):
    try:
        pid, _, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
        return pid
    except (AttributeError, OSError):
        return None  # this system does not say: the token alone guards


def descendant(pid, root):
    for _ in range(4096):
        if pid == root:
            return True
        if not pid or pid <= 1:
            return False
        try:
            with open("/proc/%d/stat" % pid) as f:
                stat = f.read()
        except OSError:
            return False
        pid = int(stat[stat.rindex(")") + 2:].split()[1])
    return False


def main():
    setup = json.loads(sys.stdin.readline())
    os.umask(0o077)
    folder = tempfile.mkdtemp(prefix="hermes-exec-")
    for name, text in setup["files"].items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(os.path.join(folder, "rpc.sock"))
    server.listen(64)
    conns, lock = {}, threading.Lock()
    root, known = [None], threading.Event()

    def serve(cid, conn):
        known.wait()
        pid = peer_pid(conn)
        if root[0] and pid is not None and not descendant(pid, root[0]):
            # Answer its first request (read within bounds) with the
            # refusal, so that it learns why, then hang up.
            try:
                conn.settimeout(5)
                conn.makefile("rb").readline(1 << 20)
                conn.sendall((json.dumps(json.dumps({"error": REFUSED})) + "\n").encode())
            except OSError:
                pass
            conn.close()
            return
        with lock:
            conns[cid] = conn
        try:
            for line in conn.makefile("rb"):
                line = line.strip()
                if line:
                    send("C %d %s" % (cid, line.decode("utf-8", "replace")))
        except OSError:
            pass
        with lock:
            conns.pop(cid, None)

    def accept():
        cid = 0
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            cid += 1
            threading.Thread(target=serve, args=(cid, conn), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    send("R " + json.dumps(folder))
    for line in sys.stdin:
        cmd, _, rest = line.rstrip("\n").partition(" ")
        if cmd == "P":
            root[0] = int(rest)
            known.set()
        elif cmd == "N":
            known.set()
        elif cmd == "A":
            cid, _, answer = rest.partition(" ")
            with lock:
                conn = conns.get(int(cid))
            if conn is not None:
                try:
                    conn.sendall((answer + "\n").encode())
                except OSError:
                    pass
        elif cmd == "E":
            break
    text, truncated = "", False
    try:
        with open(os.path.join(folder, "stderr.txt"), "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(0)
            if size <= 2 * STDERR_KEEP:
                data = f.read()
            else:
                head = f.read(STDERR_KEEP)
                f.seek(size - STDERR_KEEP)
                data, truncated = head + b"\n...\n" + f.read(), True
        text = data.decode("utf-8", "replace")
    except OSError:
        pass
    send("S " + json.dumps({"text": text, "truncated": truncated}))
    server.close()
    shutil.rmtree(folder, ignore_errors=True)
    send("X")


try:
    main()
except Exception as err:  # the agent reads why, not a traceback
    send("F " + json.dumps("%s: %s" % (type(err).__name__, err)))
