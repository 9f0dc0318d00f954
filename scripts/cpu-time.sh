#!/usr/bin/env bash
# Runs a command in a control group of its own and prints the CPU time of everything it
# started, on stderr, when it ends: `cpu-time: U s user, S s system, T s in all, W s wall`.
# `/usr/bin/time` cannot count a census: its installs and servers run under bubblewrap, whose
# sandboxed children are not waited for by a process it sees, so their CPU never reaches the
# census's rusage. A control group counts every process in it, whoever reaps it.
#   scripts/cpu-time.sh COMMAND [ARGS...]    (needs a writable cgroup v2 or v1 cpuacct; root)
# Exits with the command's status; 2 when no control group can be made.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/cpu-time.sh COMMAND [ARGS...]" >&2; exit 2; }
name="driftlab-cpu-$$-$RANDOM"
group="" kind=""
for root in /sys/fs/cgroup/unified /sys/fs/cgroup; do
  if [ -f "$root/cgroup.procs" ] && [ -f "$root/cgroup.controllers" ] && mkdir "$root/$name" 2>/dev/null; then
    group="$root/$name" kind=v2; break
  fi
done
if [ -z "$group" ] && mkdir /sys/fs/cgroup/cpuacct/"$name" 2>/dev/null; then
  group=/sys/fs/cgroup/cpuacct/$name kind=v1
fi
[ -n "$group" ] || { echo "cpu-time: cannot make a control group (needs root and a writable cgroup v2 or cpuacct)" >&2; exit 2; }
start=$(date +%s)
bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' cpu-time "$group" "$@"
status=$?
wall=$(( $(date +%s) - start ))
if [ "$kind" = v2 ]; then
  read -r user system all < <(awk '/^user_usec/{u=$2} /^system_usec/{s=$2} /^usage_usec/{a=$2}
    END {printf "%.1f %.1f %.1f\n", u/1e6, s/1e6, a/1e6}' "$group/cpu.stat")
else
  tick=$(getconf CLK_TCK)
  read -r user system < <(awk -v t="$tick" '/^user/{u=$2} /^system/{s=$2} END {printf "%.1f %.1f\n", u/t, s/t}' "$group/cpuacct.stat")
  all=$(awk '{printf "%.1f\n", $1/1e9}' "$group/cpuacct.usage")
fi
echo "cpu-time: $user s user, $system s system, $all s in all, $wall s wall" >&2
# Processes the command left behind keep the group; it goes when they do.
rmdir "$group" 2>/dev/null || true
exit "$status"
