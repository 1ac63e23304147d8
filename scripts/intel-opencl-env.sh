# shellcheck shell=bash
# Make Intel's CPU OpenCL runtime (pip wheel `intel-opencl-rt`) visible next to
# the platforms already registered (PoCL, NVIDIA, ...).
#
# Usage:   source scripts/intel-opencl-env.sh      (exports the variables)
#     or   scripts/intel-opencl-env.sh [command...] (runs the command with them)
#
# What it does:
#   1. pip-installs intel-opencl-rt, intel-cmplr-lib-rt (libsvml, libimf) and
#      tbb (libtbb) when they are missing (set GSEARCH_NO_PIP=1 to skip).
#   2. Writes an ICD directory ($GSEARCH_ICD_DIR, default
#      ${XDG_CACHE_HOME:-$HOME/.cache}/gsearch/opencl-vendors) holding a copy
#      of every /etc/OpenCL/vendors/*.icd plus intel-cpu.icd naming the real
#      path of libintelocl.so (the wheel's own .icd names a placeholder path).
#   3. Exports OCL_ICD_VENDORS=<that dir> and prepends the wheel's lib dir to
#      LD_LIBRARY_PATH. When OCL_ICD_FILENAMES is set (the GPU machine sets it
#      to list PoCL and NVIDIA), libintelocl.so is appended to it too, because
#      the loader reads both.
# Afterwards `clinfo -l` lists "Intel(R) OpenCL" beside the others.

_gsearch_intel_env() {
    local py=${PYTHON:-python3}
    if ! command -v "$py" >/dev/null 2>&1; then
        echo "intel-opencl-env: no python3 found; cannot install the Intel runtime" >&2
        return 1
    fi
    local need=()
    local pkg
    for pkg in intel-opencl-rt intel-cmplr-lib-rt tbb; do
        "$py" -m pip show -q "$pkg" >/dev/null 2>&1 || need+=("$pkg")
    done
    if [ ${#need[@]} -gt 0 ]; then
        if [ "${GSEARCH_NO_PIP:-0}" = 1 ]; then
            echo "intel-opencl-env: missing ${need[*]} (GSEARCH_NO_PIP=1, not installing)" >&2
            return 1
        fi
        echo "intel-opencl-env: pip install ${need[*]}" >&2
        "$py" -m pip install -q "${need[@]}" >&2 || return 1
    fi
    # Every directory among the installed files that holds libintelocl.so,
    # libsvml.so or libtbb.so.*.
    local libdirs
    libdirs=$("$py" - <<'EOF'
import importlib.metadata as md, os
dirs = []
for dist in ("intel-opencl-rt", "intel-cmplr-lib-rt", "tbb"):
    try:
        files = md.files(dist) or []
    except md.PackageNotFoundError:
        continue
    for f in files:
        name = os.path.basename(str(f))
        if name == "libintelocl.so" or name.startswith("libsvml") or name.startswith("libtbb.so"):
            d = os.path.dirname(os.path.realpath(f.locate()))
            if d not in dirs:
                dirs.append(d)
print(":".join(dirs))
EOF
    ) || return 1
    local ocl=""
    local d
    local IFS_SAVE=$IFS
    IFS=:
    for d in $libdirs; do
        if [ -e "$d/libintelocl.so" ]; then ocl="$d/libintelocl.so"; fi
    done
    IFS=$IFS_SAVE
    if [ -z "$ocl" ]; then
        echo "intel-opencl-env: libintelocl.so not found among the installed files" >&2
        return 1
    fi
    local icd_dir=${GSEARCH_ICD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gsearch/opencl-vendors}
    mkdir -p "$icd_dir" || return 1
    rm -f "$icd_dir"/*.icd
    local f
    for f in /etc/OpenCL/vendors/*.icd; do
        [ -e "$f" ] && cp "$f" "$icd_dir/"
    done
    echo "$ocl" >"$icd_dir/intel-cpu.icd"
    export OCL_ICD_VENDORS="$icd_dir"
    export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if [ -n "${OCL_ICD_FILENAMES:-}" ]; then
        case ":$OCL_ICD_FILENAMES:" in
            *":$ocl:"*) ;;
            *) export OCL_ICD_FILENAMES="$OCL_ICD_FILENAMES:$ocl" ;;
        esac
    fi
    return 0
}

if (return 0 2>/dev/null); then
    # Sourced.
    _gsearch_intel_env
else
    set -e
    _gsearch_intel_env
    if [ $# -gt 0 ]; then
        exec "$@"
    fi
    echo "OCL_ICD_VENDORS=$OCL_ICD_VENDORS"
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
fi
