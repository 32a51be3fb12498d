"""The CPU model of this machine, for the benchmarks' reports (bench/README.md: every
figure names the machine that produced it)."""


def cpu_model(default="unknown"):
    """The first `model name` of /proc/cpuinfo, or `default` where there is none."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return default


def git_rev(root):
    """The short commit of the checkout at `root`, with "-dirty" when tracked files changed."""
    import subprocess

    def git(*args):
        return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True).stdout.strip()

    return git("rev-parse", "--short", "HEAD") + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")
