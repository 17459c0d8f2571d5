"""The Python that every user's server runs: the course's environment, reachable by all users.

JupyterHub starts each user's server as that user, so the interpreter and every package must
be readable and executable by any local user. The course's virtual environment usually is
(it is created in the repository, mode 755), but the interpreter it was made from may not be:
on these machines it is pyenv's under /root (mode 700), which no student can enter.

``for_users(venv, folder)`` returns the venv's python when others can run it. Otherwise it
copies that interpreter's own installation (the binary, libpython and the standard library,
about 100 MB; not its site-packages) into ``folder``/python, points the binary's library path
at the copy, and makes ``folder``/venv from it: a virtual environment whose site-packages
reads the course venv's (a .pth line), whose share/jupyter and etc/jupyter are the course
venv's (kernels, lab extensions, server extensions), and whose bin/ holds the venv's console
scripts rewritten for it. The same interpreter (a system python of the same X.Y is not
enough: Debian's 3.11.2 ``re`` cannot compile what the venv's soupsieve asks of 3.11.7's),
the same packages, not copied: one environment, two doors. A server built as docs/deploy.md
says (a venv made from a system python) never needs this.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

# what the copy of the interpreter leaves out: packages (the course venv's are used), the
# test suite, IDLE, and the static library for building Python itself
SKIPPED = ("site-packages", "test", "idlelib", "config-*", "__pycache__")
LIB_PATH = b"$ORIGIN/../lib"


def others_can_run(path: Path) -> bool:
    """Whether a user who is neither owner nor in the group can execute ``path`` (every
    directory on the way searchable by others; symlinks followed)."""
    path = Path(os.path.realpath(path))
    for folder in reversed(path.parents):
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
    return bool(os.stat(path).st_mode & stat.S_IXOTH)


def describe(python: Path) -> dict:
    code = ("import json, sys, sysconfig; print(json.dumps({'version': '%d.%d' % sys.version_info[:2], "
            "'base': sys.base_prefix, 'libdir': sysconfig.get_config_var('LIBDIR')}))")
    return json.loads(subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout)


def for_users(venv: Path, folder: Path) -> Path:
    """The interpreter users' servers run (see the module's docstring)."""
    venv = Path(venv).resolve()
    python = venv / "bin" / "python"
    if others_can_run(python):
        return python
    info = describe(python)
    folder = Path(folder).resolve()
    copy = folder / "python"
    interpreter = copy / "bin" / f"python{info['version']}"
    if not interpreter.exists():
        copy_interpreter(Path(info["base"]), copy, info["version"], info["libdir"])
    return bridge(venv, folder / "venv", interpreter, info["version"])


def copy_interpreter(base: Path, copy: Path, version: str, libdir: str | None) -> None:
    staged = copy.with_name(copy.name + ".new")
    shutil.rmtree(staged, ignore_errors=True)
    (staged / "bin").mkdir(parents=True)
    binary = staged / "bin" / f"python{version}"
    shutil.copy2(base / "bin" / f"python{version}", binary)
    shutil.copytree(base / "lib", staged / "lib", symlinks=True, ignore=shutil.ignore_patterns(*SKIPPED))
    if (base / "include").is_dir():
        shutil.copytree(base / "include", staged / "include", symlinks=True)
    if libdir:
        relocate(binary, libdir)
    for path in [staged, *staged.rglob("*")]:
        readable(path)
    staged.rename(copy)


def relocate(binary: Path, libdir: str) -> None:
    """Point the binary's RUNPATH (an absolute path into the original installation, where
    libpython is) at the copy's lib/, in place: the new path is shorter, the rest NULs."""
    data = binary.read_bytes()
    old = libdir.encode() + b"\0"
    if data.count(old) != 1 or len(LIB_PATH) >= len(old):
        return  # not built with an absolute library path: nothing to change
    binary.write_bytes(data.replace(old, LIB_PATH + b"\0" * (len(old) - len(LIB_PATH))))


def readable(path: Path) -> None:
    if not path.is_symlink():
        mode = path.stat().st_mode
        path.chmod(mode | stat.S_IROTH | (stat.S_IXOTH if path.is_dir() or mode & stat.S_IXUSR else 0))


def site_packages(venv: Path, version: str) -> Path:
    return venv / "lib" / f"python{version}" / "site-packages"


def bridge(venv: Path, folder: Path, interpreter: Path, version: str) -> Path:
    if not (folder / "bin" / "python").exists():
        subprocess.run([str(interpreter), "-m", "venv", "--without-pip", str(folder)], check=True)
    # site.addsitedir (not a bare path) so that the venv's own .pth files, the editable
    # install of this repository's packages among them, are read too
    (site_packages(folder, version) / "course-venv.pth").write_text(
        f"import site; site.addsitedir({str(site_packages(venv, version))!r})\n")
    for shared in ("share/jupyter", "etc/jupyter"):
        link = folder / shared
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            shutil.rmtree(link, ignore_errors=True)
            link.symlink_to(venv / shared)
    rewrite_scripts(venv, folder)
    for path in [folder, *folder.rglob("*")]:
        readable(path)
    return folder / "bin" / "python"


def rewrite_scripts(venv: Path, folder: Path) -> None:
    """The venv's console scripts (jupyter, course, alembic, ...) with the bridge's python in
    their first line: nbgrader runs ``alembic`` and Jupyter runs ``jupyter-*`` from PATH."""
    shebang = f"#!{venv / 'bin' / 'python'}"
    for script in (venv / "bin").iterdir():
        if script.is_symlink() or not script.is_file() or script.name.startswith("python"):
            continue
        try:
            first, _, rest = script.read_text().partition("\n")
        except UnicodeDecodeError:
            continue
        if first.startswith(shebang):
            target = folder / "bin" / script.name
            target.write_text(f"#!{folder / 'bin' / 'python'}{first[len(shebang):]}\n{rest}")
            target.chmod(0o755)


if __name__ == "__main__":
    print(for_users(Path(sys.argv[1]), Path(sys.argv[2])))
