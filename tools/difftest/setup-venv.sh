#!/usr/bin/env bash
# Makes the Python environment the differential tester's TensorFlow side runs in, outside the
# repository: ./setup-venv.sh [DIR] (default: ../venv beside the repository). Then
#   DIR/bin/python tools/difftest/run.py --seeds 0:1000 -j 2
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${1:-$root/../venv}"
python3 -m venv "$dir"
"$dir/bin/pip" install --quiet --upgrade pip
"$dir/bin/pip" install --quiet "tensorflow-cpu==2.21.*" numpy
"$dir/bin/python" -c "import tensorflow as tf; print('TensorFlow', tf.__version__, 'in', '$dir')"
"$dir/bin/python" "$root/tools/difftest/prelude.py"
