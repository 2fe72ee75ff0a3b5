# The common set-up of the host measurement scripts (sourced, not run): CARRY = the carried
# binaries (build-devcarry/ from stage_host_bins.sh), FINAL = where the one tarball goes
# ($OUT of the device tool, else ./out), OUT = a scratch folder, the carried libraries on
# the loader path and a parameter cache of its own.
CARRY=${CARRY:-build-devcarry}
FINAL=${OUT:-./out}
OUT=$(mktemp -d)
mkdir -p "$FINAL"
export LD_LIBRARY_PATH="$CARRY/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PROOFLAB_PARAM_DIR=/tmp/prooflab-params
