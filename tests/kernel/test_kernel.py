"""The DGL kernel under a real Jupyter client (jupyter_client), as a notebook front end
drives it: the protocol checks of jupyter_kernel_test, then interrupting a running cell,
state across cells, rich output and malformed input.

Needs the kernelspec installed where jupyter_client finds it (.ci/run installs it into
the virtual environment with `dgl kernel install --sys-prefix`). Run:
    python -m unittest tests/kernel/test_kernel.py
"""

import time
import unittest
from queue import Empty

import jupyter_kernel_test
import zmq
from jupyter_client.manager import start_new_kernel

TIMEOUT = 30


class DGLKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "dgl"
    language_name = "dgl"
    file_extension = ".dgl"

    code_hello_world = "print('hello, world')"
    code_stderr = "import sys\nprint('to stderr', file=sys.stderr)"

    completion_samples = [
        {"text": "reduce_su", "matches": {"reduce_sum"}},
        {"text": "[1, 2].appe", "matches": set()},
        {"text": "xs = [1]\nxs.app", "matches": set()},
    ]

    complete_code_samples = ["x = 1", "print('hello')", "def f(x):\n    return x\n\n"]
    incomplete_code_samples = ["for i in range(3):", "f(1,", "x = [1,\n 2,"]
    invalid_code_samples = ["x = = 1", "1 +* 2"]

    code_inspect_sample = "reduce_sum"

    code_generate_error = "undefined_name + 1"

    code_execute_result = [
        {"code": "1 + 2", "result": "3"},
        {"code": "x = 6\nx * 7", "result": "42"},
        {"code": "'dgl'", "result": "'dgl'"},
    ]

    code_display_data = [
        {
            "code": "class Pic:\n    def _repr_svg_(self):\n        return '<svg xmlns=\"http://www.w3.org/2000/svg\"/>'\ndisplay(Pic())",
            "mime": "image/svg+xml",
        },
        {
            "code": "class Page:\n    def _repr_html_(self):\n        return '<b>bold</b>'\ndisplay(Page())",
            "mime": "text/html",
        },
    ]


def outputs_of(kc, msg_id, timeout=TIMEOUT):
    """Every iopub message answering `msg_id`, up to its `idle` status."""
    msgs = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = kc.get_iopub_msg(timeout=1)
        except Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return msgs
        msgs.append(msg)
    raise AssertionError(f"no idle status for {msg_id} within {timeout}s; got {msgs}")


class DGLKernelBehaviour(unittest.TestCase):
    """What a user of a notebook sees beyond the protocol checks."""

    @classmethod
    def setUpClass(cls):
        cls.km, cls.kc = start_new_kernel(kernel_name="dgl")

    @classmethod
    def tearDownClass(cls):
        cls.kc.stop_channels()
        cls.km.shutdown_kernel()

    def execute(self, code, timeout=TIMEOUT):
        msg_id = self.kc.execute(code)
        reply = self.kc.get_shell_msg(timeout=timeout)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        return reply["content"], outputs_of(self.kc, msg_id, timeout)

    def stdout_of(self, outputs):
        return "".join(m["content"]["text"] for m in outputs if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")

    def test_state_lives_across_cells(self):
        self.execute("counter = 10\ndef bump(n):\n    global counter\n    counter += n")
        self.execute("bump(5)")
        reply, outputs = self.execute("print(counter)")
        self.assertEqual(reply["status"], "ok")
        self.assertEqual(self.stdout_of(outputs), "15\n")

    def test_interrupt_stops_an_endless_loop_and_the_kernel_goes_on(self):
        msg_id = self.kc.execute("i = 0\nwhile True:\n    i += 1")
        time.sleep(1.0)
        started = time.monotonic()
        self.km.interrupt_kernel()
        reply = self.kc.get_shell_msg(timeout=TIMEOUT)
        self.assertLess(time.monotonic() - started, 5.0)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")
        errors = [m for m in outputs_of(self.kc, msg_id) if m["msg_type"] == "error"]
        self.assertEqual([e["content"]["ename"] for e in errors], ["KeyboardInterrupt"])
        # The loop ran, and the kernel still answers, with its state.
        reply, outputs = self.execute("print(i > 0)")
        self.assertEqual(self.stdout_of(outputs), "True\n")

    def test_interrupting_a_training_loop(self):
        code = (
            "w = Variable(ones([64, 64]))\n"
            "steps = 0\n"
            "while True:\n"
            "    with GradientTape() as tape:\n"
            "        loss = reduce_sum(matmul(w, w))\n"
            "    w.assign_sub(0.0 * tape.gradient(loss, w))\n"
            "    steps += 1\n"
        )
        msg_id = self.kc.execute(code)
        time.sleep(1.0)
        self.km.interrupt_kernel()
        reply = self.kc.get_shell_msg(timeout=10)
        self.assertEqual((reply["parent_header"]["msg_id"], reply["content"]["status"]), (msg_id, "error"))
        outputs_of(self.kc, msg_id)
        reply, outputs = self.execute("print(steps > 0)")
        self.assertEqual((reply["status"], self.stdout_of(outputs)), ("ok", "True\n"), (reply, outputs))

    def test_output_streams_while_the_cell_runs(self):
        msg_id = self.kc.execute("import time\nprint('first')\ntime.sleep(2)\nprint('second')")
        first_seen = None
        started = time.monotonic()
        while first_seen is None and time.monotonic() - started < 10:
            try:
                msg = self.kc.get_iopub_msg(timeout=0.2)
            except Empty:
                continue
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                self.assertEqual(msg["content"]["text"], "first\n")
                first_seen = time.monotonic() - started
        self.assertIsNotNone(first_seen)
        self.assertLess(first_seen, 1.5, "the first line should arrive before the cell sleeps out")
        self.kc.get_shell_msg(timeout=TIMEOUT)
        outputs_of(self.kc, msg_id)

    def test_run_all_stops_at_the_first_error(self):
        # Cells sent together ("Run all"): the ones waiting when a cell fails are aborted;
        # a cell sent after the error runs.
        failing = self.kc.execute("import time\ntime.sleep(1)\n1 / 0")
        waiting = self.kc.execute("after_error = 1")
        replies = {}
        for _ in range(2):
            reply = self.kc.get_shell_msg(timeout=TIMEOUT)
            replies[reply["parent_header"]["msg_id"]] = reply["content"]["status"]
        self.assertEqual(replies, {failing: "error", waiting: "aborted"})
        reply, outputs = self.execute("try:\n    after_error\n    print('ran')\nexcept NameError:\n    print('not run')")
        self.assertEqual(self.stdout_of(outputs), "not run\n")

    def test_deep_recursion_is_an_error_not_a_crash(self):
        reply, outputs = self.execute("def f(n):\n    return f(n + 1)\nf(0)")
        self.assertEqual(reply["status"], "error")
        self.assertEqual(reply["ename"], "RecursionError")
        reply, outputs = self.execute("print('alive')")
        self.assertEqual(self.stdout_of(outputs), "alive\n")

    def test_input_does_not_hang(self):
        reply, _ = self.execute("input('name? ')")
        self.assertEqual((reply["status"], reply["ename"]), ("error", "EOFError"))

    def test_errors_carry_dgls_report(self):
        reply, outputs = self.execute("x = [1, 2]\nx[5]")
        [error] = [m["content"] for m in outputs if m["msg_type"] == "error"]
        self.assertEqual(error["ename"], "IndexError")
        self.assertTrue(any("<input-" in line for line in error["traceback"]), error["traceback"])

    def test_malformed_messages_are_ignored_and_the_kernel_goes_on(self):
        # Raw frames on the shell socket: no delimiter, a wrong signature, a bad header,
        # an unknown message type, content of the wrong shape.
        ctx = zmq.Context.instance()
        sock = ctx.socket(zmq.DEALER)
        sock.linger = 0
        sock.connect(f"{self.km.transport}://{self.km.ip}:{self.km.shell_port}")
        try:
            sock.send_multipart([b"garbage"])
            sock.send_multipart([b"<IDS|MSG>", b"0" * 64, b"{}", b"{}", b"{}", b"{}"])
            session = self.kc.session
            for msg_type, content in [("frobnicate_request", {}), ("execute_request", {"no_code": 1})]:
                msg = session.msg(msg_type, content)
                session.send(sock, msg)
            parts = [b"not json", b"{}", b"{}", b"{}"]
            sock.send_multipart([b"<IDS|MSG>", session.sign(parts), *parts])
        finally:
            sock.close()
        time.sleep(0.5)
        reply, outputs = self.execute("print('still here')")
        self.assertEqual(self.stdout_of(outputs), "still here\n")
        # The kernel answered heartbeats throughout.
        self.assertTrue(self.km.is_alive())


if __name__ == "__main__":
    unittest.main()
