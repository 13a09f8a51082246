"""The Python-level cache of inferno.compile: one directory per key (a SHA-256 of everything the
compiled library depends on), holding infernoc's output files and entry.json, which lists each
file's size and SHA-256. An entry is used only when entry.json parses, names this key and every
file it lists has exactly that size and hash; anything else (truncated, edited, half-deleted) is a
miss, and the rebuilt entry replaces it. Entries are built in a temporary directory beside them and
renamed into place, so a crash or a concurrent compile never leaves a partial entry behind."""
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

ENTRY_FILE = "entry.json"
LIBRARY = "model.so"
_FORMAT = 1
_MAX_ENTRY_BYTES = 1 << 16  # entry.json is read whole: bound it
_CHUNK = 1 << 20


def default_dir():
    """$INFERNO_PYTHON_CACHE, else $XDG_CACHE_HOME/inferno-python, else ~/.cache/inferno-python."""
    if os.environ.get("INFERNO_PYTHON_CACHE"):
        return Path(os.environ["INFERNO_PYTHON_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "inferno-python"


def _file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _plain_name(name):
    return isinstance(name, str) and name not in ("", ".", "..", ENTRY_FILE) and "/" not in name and "\0" not in name


class Cache:
    def __init__(self, root):
        self.root = Path(root).absolute()

    def _entry(self, key):
        return self.root / key[:2] / key

    def lookup(self, key):
        """The cached library's path for `key`, or None when there is no complete, intact entry."""
        entry = self._entry(key)
        try:
            with open(entry / ENTRY_FILE, "rb") as f:
                text = f.read(_MAX_ENTRY_BYTES + 1)
            if len(text) > _MAX_ENTRY_BYTES:
                return None
            meta = json.loads(text)
            files = meta["files"]
            if meta.get("format") != _FORMAT or meta.get("key") != key or LIBRARY not in files:
                return None
            for name, facts in files.items():
                if not _plain_name(name) or os.stat(entry / name).st_size != facts["size"]:
                    return None
                if _file_sha256(entry / name) != facts["sha256"]:
                    return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return entry / LIBRARY

    def new_build_dir(self):
        """An empty directory on the cache's file system for infernoc to write into."""
        self.root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".build-", dir=self.root))

    def store(self, key, build_dir):
        """Makes `build_dir` (infernoc's output) the entry for `key`; returns the library's path."""
        files = {}
        for path in sorted(Path(build_dir).iterdir()):
            if path.is_file() and _plain_name(path.name):
                files[path.name] = {"size": path.stat().st_size, "sha256": _file_sha256(path)}
        with open(Path(build_dir) / ENTRY_FILE, "w") as f:
            json.dump({"format": _FORMAT, "key": key, "files": files}, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        entry = self._entry(key)
        entry.parent.mkdir(parents=True, exist_ok=True)
        if entry.exists() and self.lookup(key) is None:
            shutil.rmtree(entry, ignore_errors=True)  # a damaged entry: the new one replaces it
        try:
            os.rename(build_dir, entry)
        except OSError:
            # Another process stored this key first: use its entry if it is intact.
            shutil.rmtree(build_dir, ignore_errors=True)
            found = self.lookup(key)
            if found is None:
                raise
            return found
        return entry / LIBRARY
