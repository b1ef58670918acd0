"""mmprof_run: the diff-checking tests' way of running mmprof from Python
(t309, t311; PYTHONPATH=tests/integration): stdout of a command that
exits 0 or 1 (a gate or a difference), else a line saying why and exit 2."""
import subprocess
import sys


def run(mmprof, args):
    p = subprocess.run([mmprof] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        print("mmprof %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        sys.exit(2)
    return p.stdout
