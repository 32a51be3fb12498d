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
