# Starts a one-node Slurm cluster for tests and benchmarks (tests/cluster/slurm_sweep_test.sh,
# bench/slurm_sweep_time.sh): munged, slurmctld and slurmd as root, from a slurm.conf generated in
# a temporary folder (SLURM_CONF points at it, exported; nothing under /etc is touched). Source it,
# call `slurm_cluster_folder PREFIX` (sets $tmp, /tmp/PREFIX.XXXXXX, and the `pids` array; on exit
# the daemons are killed and the folder removed), then `start_slurm_cluster CPUS`, which calls the
# caller's `fail MESSAGE` when the node does not come up idle.
# Needs root and Debian's slurm-wlm and munge (ci/install-deps.sh).

slurm_cluster_folder() {
  tmp=$(mktemp -d "/tmp/$1.XXXXXX")
  chmod 755 "$tmp"
  pids=()
  trap slurm_cluster_cleanup EXIT
}

slurm_cluster_cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$tmp"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

start_slurm_cluster() {
  local cpus=$1 node state
  # munge: its own key, socket and logs in $tmp.
  mkdir -m 755 "$tmp/munge"
  dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$tmp/munge/munge.key"
  munged --foreground --force --key-file="$tmp/munge/munge.key" \
    --socket="$tmp/munge/munge.socket" --pid-file="$tmp/munge/munged.pid" \
    --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed" \
    >"$tmp/munged.out" 2>&1 &
  pids+=($!)

  node=$(hostname -s)
  mkdir -p "$tmp/state" "$tmp/spool"
  export SLURM_CONF="$tmp/slurm.conf"
  cat >"$SLURM_CONF" <<CONF
ClusterName=llmsimtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
LogTimeFormat=iso8601_ms
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
InactiveLimit=0
KillWait=5
Waittime=0
# sbatch --wait polls after 2 s, then every 8 s unless 2 s is not under MinJobAge/2.
MinJobAge=4
# Schedule a batch job as soon as it is submitted (the default defers it by up to 3 s).
SchedulerParameters=batch_sched_delay=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

  for _ in $(seq 50); do [[ -S $tmp/munge/munge.socket ]] && break; sleep 0.1; done
  slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
  pids+=($!)
  slurmd -D -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
  pids+=($!)
  state=
  for _ in $(seq 100); do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
    [[ $state == idle ]] && break
    sleep 0.2
  done
  [[ $state == idle ]] || fail "the node did not come up idle (state '$state')"
}
