# A private one-node Slurm cluster in a directory, for test-slurm.sh (sourced).
#
# cl_start DIR starts munged, slurmctld and slurmd with everything under DIR:
# config, state, spool, logs, pid files, the munge key and socket. Nothing
# outside DIR is written and no system service is touched, so it runs beside
# a real cluster's daemons (its own ports and munge socket). cl_stop stops
# what cl_start started, by pid, and any process still holding a file of DIR
# open (a job step slurmd left behind). The clients find the cluster through
# SLURM_CONF, which cl_start exports.

cl_dir=; cl_munged=; cl_ctld=; cl_slurmd=

# Poll a command every 0.2 s for at most $1 seconds.
cl_wait() {
    cl_n=$(($1 * 5)); shift
    while [ "$cl_n" -gt 0 ]; do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.2; cl_n=$((cl_n - 1))
    done
    return 1
}

# Alive and not a zombie (a child of ours that exited but is not reaped yet).
cl_alive() {
    [ -n "$1" ] && [ -r "/proc/$1/stat" ] || return 1
    [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" != Z ]
}

# The first TCP port from $1 up that nothing listens on.
cl_free_port() {
    cl_p=$1
    while grep -qi ":$(printf '%04X' "$cl_p") " /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
        cl_p=$((cl_p + 1))
    done
    echo "$cl_p"
}

cl_write_conf() {
    cl_host=$(uname -n); cl_host=${cl_host%%.*}
    cl_port=$(cl_free_port $((20000 + $$ % 20000)))
    cl_dport=$(cl_free_port $((cl_port + 1)))
    cl_user=$(id -un)
    # proctrack/linuxproc and task/none: no cgroups (none in a container, and
    # Slurm 22.05 needs cgroup.conf for them); sched/builtin starts the next
    # array task as soon as one ends. RealMemory covers the script's
    # --mem-per-cpu=1536M on 2 CPUs.
    cat >"$cl_dir/slurm.conf" <<EOF
ClusterName=agtest
SlurmctldHost=$cl_host(127.0.0.1)
SlurmctldPort=$cl_port
SlurmdPort=$cl_dport
SlurmUser=$cl_user
SlurmdUser=$cl_user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$cl_dir/munge/munge.socket
StateSaveLocation=$cl_dir/state
SlurmdSpoolDir=$cl_dir/spool
SlurmctldPidFile=$cl_dir/run/slurmctld.pid
SlurmdPidFile=$cl_dir/run/slurmd.pid
SlurmctldLogFile=$cl_dir/log/slurmctld.log
SlurmdLogFile=$cl_dir/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
KillWait=10
MinJobAge=3600
NodeName=agnode NodeAddr=127.0.0.1 CPUs=2 RealMemory=3072 State=UNKNOWN
PartitionName=grade Nodes=agnode Default=YES MaxTime=INFINITE State=UP
EOF
}

cl_queue_empty() { [ -z "$(squeue -h -o %A)" ]; }
cl_ctld_up() { scontrol ping | grep -q 'is UP'; }
cl_node_idle() { scontrol show node agnode | grep -q 'State=IDLE'; }

# Print why a daemon did not start: its log's last lines.
cl_why() {
    echo "--- last lines of $1:" >&2
    tail -n 15 "$1" >&2 2>/dev/null || true
}

# cl_start DIR: returns 1 (after printing why) when a daemon does not start.
# The daemons run niced in the foreground (-D, -F) as our children, so their
# pids are known without trusting pid files.
cl_start() {
    cl_dir=$1
    mkdir -p "$cl_dir/munge" "$cl_dir/munge-key" "$cl_dir/state" "$cl_dir/spool" \
        "$cl_dir/log" "$cl_dir/run"
    # munged wants its socket's folder traversable by all and its key private.
    chmod 755 "$cl_dir" "$cl_dir/munge"
    chmod 700 "$cl_dir/munge-key"
    (umask 077 && head -c 1024 /dev/urandom >"$cl_dir/munge-key/munge.key")
    cl_write_conf
    export SLURM_CONF="$cl_dir/slurm.conf"
    setsid nice -n 10 munged -F --socket="$cl_dir/munge/munge.socket" \
        --key-file="$cl_dir/munge-key/munge.key" --pid-file="$cl_dir/run/munged.pid" \
        --log-file="$cl_dir/log/munged.log" --seed-file="$cl_dir/munge-key/munged.seed" \
        >"$cl_dir/log/munged.out" 2>&1 &
    cl_munged=$!
    if ! cl_wait 15 test -S "$cl_dir/munge/munge.socket"; then
        cl_why "$cl_dir/log/munged.log"; cl_why "$cl_dir/log/munged.out"
        echo "munged did not start" >&2; return 1
    fi
    setsid nice -n 10 slurmctld -D -f "$SLURM_CONF" >"$cl_dir/log/slurmctld.out" 2>&1 &
    cl_ctld=$!
    if ! cl_wait 30 cl_ctld_up; then
        cl_why "$cl_dir/log/slurmctld.log"; cl_why "$cl_dir/log/slurmctld.out"
        echo "slurmctld did not start" >&2; return 1
    fi
    # The jobs inherit slurmd's niceness: the grading runs at nice 10 too.
    setsid nice -n 10 slurmd -D -N agnode -f "$SLURM_CONF" >"$cl_dir/log/slurmd.out" 2>&1 &
    cl_slurmd=$!
    if ! cl_wait 30 cl_node_idle; then
        cl_why "$cl_dir/log/slurmd.log"; cl_why "$cl_dir/log/slurmd.out"
        echo "slurmd did not register its node" >&2; return 1
    fi
}

cl_gone() { ! cl_alive "$1"; }

# SIGTERM, up to 10 s, then SIGKILL; reap it when it is our child.
cl_kill() {
    cl_alive "$1" || { wait "$1" 2>/dev/null || true; return 0; }
    kill -TERM "$1" 2>/dev/null || true
    cl_wait 10 cl_gone "$1" || kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# Pids (other than ours) with a file of folder $1 open or their working
# directory in it: job steps and jobs that outlived their daemon.
cl_holders() {
    for cl_d in /proc/[0-9]*; do
        cl_p=${cl_d#/proc/}
        [ "$cl_p" = "$$" ] && continue
        for cl_f in "$cl_d/cwd" "$cl_d"/fd/*; do
            case $(readlink "$cl_f" 2>/dev/null) in
            "$1" | "$1"/*) echo "$cl_p"; break ;;
            esac
        done
    done
}

# cl_stop [DIR]: cancel every job, stop the daemons, then whatever still
# holds a file under DIR (default: the cluster's folder; give the folder that
# holds the jobs' logs and outputs too).
cl_stop() {
    [ -n "$cl_dir" ] || return 0
    if cl_alive "$cl_ctld"; then
        cl_ids=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
        if [ -n "$cl_ids" ]; then
            # shellcheck disable=SC2086
            scancel $cl_ids 2>/dev/null || true
            cl_wait 30 cl_queue_empty || true
        fi
    fi
    cl_kill "$cl_slurmd"; cl_kill "$cl_ctld"; cl_kill "$cl_munged"
    for _ in 1 2 3; do
        cl_left=$(cl_holders "${1:-$cl_dir}")
        [ -n "$cl_left" ] || break
        for cl_p in $cl_left; do cl_kill "$cl_p"; done
    done
    cl_slurmd=; cl_ctld=; cl_munged=
}
