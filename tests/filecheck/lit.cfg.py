"""lit configuration of vta-mlir's FileCheck suite (``lit -v tests/filecheck``).

Every ``.mlir`` file below this folder is a test (``tools/``, ``upstream/``, and the
``dialects/`` and ``passes/`` folders of the dialect and pass tests).  ``vta-opt``,
``filecheck`` and ``python`` resolve to the environment running lit: lit scrubs the
environment, so the folder of ``sys.executable`` is put first on ``PATH`` and the substitutions
name the programs by absolute path when they are there.
"""

# ruff: noqa: F821 - `config` is injected by lit

import os
import shutil
import sys

import lit.formats

config.name = "vta-mlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.local.cfg"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root

bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
for name in ("PYTHONPATH", "VTA_MLIR_DEBUG", "HOME"):
    if name in os.environ:
        config.environment[name] = os.environ[name]


def _tool(name: str) -> str:
    """Absolute path of a console script of this environment, else the bare name."""
    path = os.path.join(bin_dir, name)
    if os.path.exists(path):
        return path
    return shutil.which(name, path=config.environment["PATH"]) or name


# A bare program name in a RUN line (not part of a path such as `tools/vta-opt/x.mlir`, nor
# of a longer name) becomes the absolute path of this environment's program.
for program in ("vta-opt", "filecheck"):
    config.substitutions.append((rf"(?<![\w./-]){program}(?![\w./-])", _tool(program)))
config.substitutions.append((r"(?<![\w./-])python(?![\w./-])", sys.executable))
