"""The exception inferno.compile raises."""


class CompileError(RuntimeError):
    """Exporting or compiling a module failed. `stage` is "export" (torch.export or tracing) or
    "infernoc"; for infernoc, `returncode` is its exit code (2 unsupported, 3 invalid input, 4
    toolchain, 5 I/O, 1 internal: see infernoc --help) and `stderr` what it printed."""

    def __init__(self, message, *, stage, returncode=None, stderr=""):
        super().__init__(message)
        self.stage, self.returncode, self.stderr = stage, returncode, stderr
