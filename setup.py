# SPDX-License-Identifier: MIT
"""Build of the ``kfifo`` Python package (setuptools; metadata in pyproject.toml).

Nothing is written outside the source tree's own build tree: setuptools'
``build/`` and ``kfifo.egg-info`` go to ``build/python`` (git-ignored and
left out of the sdist; kept, so rebuilds are incremental), or to
``$KFIFO_BUILD_BASE``.  Nothing goes to a shared temporary directory.  ``build_ext`` does three things there, in order:

1. runs CMake on the project's own top-level ``CMakeLists.txt`` to build
   ``libkfifo.a`` and the binding's own C, ``libkfifo_py.a`` (from
   ``swig/kfifo_py.c``), so that the compiler flags of every hand-written
   C file live in one place only;
2. runs SWIG (``-python``) on ``swig/kfifo.i``;
3. compiles the generated wrapper into the extension ``kfifo._kfifo``,
   linked against those two libraries.

``KFIFO_SANITIZE=address,undefined`` (used by ``run-tests``) builds all of
it with those sanitizers, for running the Python tests under ASan.

SWIG and CMake come from PyPI (``pyproject.toml`` lists them as build
requirements); a ``swig``/``cmake`` on ``PATH`` is used when the PyPI ones
are not importable (``--no-build-isolation`` builds).

The version is read from ``c/include/kfifo.h``, the single source that
CMake and ``kfifo.__version__`` also use.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join("c", "include", "kfifo.h")


def read_version() -> str:
    with open(os.path.join(HERE, HEADER), encoding="utf-8") as f:
        text = f.read()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define KFIFO_VERSION_%s (\d+)$" % part, text, re.M)
        if m is None:
            raise RuntimeError("KFIFO_VERSION_%s not found in %s" % (part, HEADER))
        parts.append(m.group(1))
    return ".".join(parts)


def build_base() -> str:
    base = os.path.abspath(os.environ.get("KFIFO_BUILD_BASE") or os.path.join(HERE, "build", "python"))
    os.makedirs(base, exist_ok=True)  # egg_info wants it to exist
    return base


def _cmake_command() -> list[str]:
    try:
        import cmake  # the PyPI package (a build requirement)

        exe = os.path.join(cmake.CMAKE_BIN_DIR, "cmake")
        if os.path.exists(exe) or os.path.exists(exe + ".exe"):
            return [exe]
    except ImportError:
        pass
    exe = shutil.which("cmake")
    if exe is None:
        raise RuntimeError("CMake is needed to build kfifo: pip install cmake")
    return [exe]


def _swig_command() -> list[str]:
    try:
        import swig  # noqa: F401  the PyPI package (a build requirement)

        # its entry point sets SWIG_LIB to the library it ships
        return [sys.executable, "-c", "import swig; swig.swig()"]
    except ImportError:
        pass
    exe = shutil.which("swig")
    if exe is None:
        raise RuntimeError("SWIG is needed to build kfifo: pip install swig")
    return [exe]


class CMakeSwigBuildExt(build_ext):
    """build_ext that builds libkfifo.a with CMake and runs SWIG first."""

    def run(self) -> None:
        if _sanitizers():
            # never mix sanitized and plain objects in one build directory
            self.build_temp = self.build_temp + "-" + "-".join(_sanitizers())
        # the extension is relinked every time: setuptools' timestamps do not
        # see a rebuilt libkfifo_py.a or a change of KFIFO_SANITIZE
        self.force = True
        temp = os.path.abspath(self.build_temp)
        os.makedirs(temp, exist_ok=True)
        libs = self._build_c_core(os.path.join(temp, "cmake"))
        wrap = self._run_swig(temp)
        for ext in self.extensions:
            ext.sources = [wrap]
            ext.extra_objects = libs
        super().run()

    def _build_c_core(self, build_dir: str) -> list[str]:
        cmake = _cmake_command()
        self.announce("building libkfifo.a and libkfifo_py.a with CMake in %s" % build_dir, level=2)
        subprocess.check_call(
            cmake
            + [
                "-S", HERE,
                "-B", build_dir,
                "-DKFIFO_BUILD_TESTS=OFF",
                "-DKFIFO_INSTALL=OFF",
                "-DBUILD_SHARED_LIBS=OFF",
                "-DCMAKE_BUILD_TYPE=Release",
                "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
                "-DKFIFO_PYTHON=ON",
                "-DKFIFO_PYTHON_INCLUDE_DIR=" + sysconfig.get_paths()["include"],
                "-DKFIFO_PY_GIL_THRESHOLD=" + os.environ.get("KFIFO_GIL_THRESHOLD", ""),
            ]
            + ["-DKFIFO_%s=ON" % s.upper() for s in _sanitizers()]
        )
        jobs = str(self.parallel or os.cpu_count() or 1)
        subprocess.check_call(
            cmake
            + ["--build", build_dir, "--target", "kfifo_py", "kfifo", "--config", "Release", "-j", jobs]
        )
        libs = []
        for name in ("kfifo_py", "kfifo"):  # link order: the binding, then the core
            found = glob.glob(os.path.join(build_dir, "**", "lib%s.a" % name), recursive=True)
            if not found:
                raise RuntimeError("CMake did not produce lib%s.a in %s" % (name, build_dir))
            libs.append(found[0])
        return libs

    def _run_swig(self, temp: str) -> str:
        wrap = os.path.join(temp, "kfifo_wrap.c")
        interface = os.path.join(HERE, "swig", "kfifo.i")
        self.announce("running SWIG on %s" % interface, level=2)
        # -interface _kfifo: the C module itself is kfifo._kfifo, SWIG's
        # Python shim (written to build_temp) is not needed and not installed.
        subprocess.check_call(
            _swig_command()
            + [
                "-python", "-interface", "_kfifo",
                "-I" + os.path.join(HERE, "c", "include"),
                "-I" + os.path.join(HERE, "swig"),
                "-outdir", temp,
                "-o", wrap,
                interface,
            ]
        )
        return wrap


def _sanitizers() -> list[str]:
    # KFIFO_SANITIZE=address,undefined: CMake's KFIFO_ASAN/KFIFO_UBSAN names
    names = {"address": "asan", "undefined": "ubsan"}
    value = os.environ.get("KFIFO_SANITIZE", "")
    wanted = [s.strip() for s in value.split(",") if s.strip()]
    for s in wanted:
        if s not in names:
            raise RuntimeError("KFIFO_SANITIZE: unknown sanitizer %r (address, undefined)" % s)
    return [names[s] for s in wanted]


def _sanitize_args() -> list[str]:
    value = os.environ.get("KFIFO_SANITIZE", "")
    if not value:
        return []
    return ["-fsanitize=" + value, "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"]


def _link_args() -> list[str]:
    args = _sanitize_args()
    # Keep the C core's symbols private to the extension on ELF platforms.
    if sys.platform.startswith("linux"):
        args.append("-Wl,--exclude-libs,ALL")
    return args


setup(
    version=read_version(),
    ext_modules=[
        Extension(
            "kfifo._kfifo",
            # replaced by the generated wrapper in CMakeSwigBuildExt.run();
            # listed so that an sdist always carries the interface
            sources=["swig/kfifo.i"],
            include_dirs=[os.path.join(HERE, "c", "include"), os.path.join(HERE, "swig")],
            extra_compile_args=_sanitize_args(),
            extra_link_args=_link_args(),
        )
    ],
    # the specification that the installed header and kfifo.model's
    # docstrings cite by section; cmake --install puts it in the same place
    data_files=[("share/doc/kfifo", ["docs/spec.md"])],
    cmdclass={"build_ext": CMakeSwigBuildExt},
    options={"build": {"build_base": build_base()}, "egg_info": {"egg_base": build_base()}},
)
