#!/usr/bin/env python3
"""End-to-end test of propgraph-cypher: real invocations, their output and exit status.

usage: cypher_shell_test.py PATH/TO/propgraph-cypher
"""
import json
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time
import unittest

SHELL = None


def run(*args, stdin=""):
    """Runs the shell with args, standard input from a pipe (so: not a terminal)."""
    return subprocess.run([SHELL, *args], input=stdin, capture_output=True, text=True, timeout=60)


class Commands(unittest.TestCase):
    def test_create_then_match(self):
        r = run("-c", "CREATE (:Person {name: 'Ann', age: 30}), (:Person {name: 'Bob', age: 25})",
                "-c", "MATCH (p:Person) RETURN p.name AS name, p.age AS age ORDER BY name")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("0 rows; 2 vertices created, 4 properties set", r.stdout)
        self.assertRegex(r.stdout, r"\| name +\| age +\|\n")
        self.assertRegex(r.stdout, r"\| 'Ann' +\| 30 +\|\n\| 'Bob' +\| 25 +\|\n")
        self.assertIn("2 rows\n", r.stdout)

    def test_nodes_print_with_id_and_label(self):
        r = run("-c", "CREATE (n:Person {name: 'Ann'}) RETURN n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\| \(\S+:Person \{name: 'Ann'\}\) +\|")

    def test_parameters(self):
        r = run("--param", 'name="Ann"', "--param", 'm={"k": 1.0, "l": [1, 2]}',
                "-c", "RETURN $name AS name, $m AS m")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\| 'Ann' +\| \{k: 1\.0, l: \[1, 2\]\} +\|")

    def test_bad_parameter_is_a_usage_error(self):
        r = run("--param", "x={oops", "-c", "RETURN 1 AS one")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--param x", r.stderr)

    def test_timing(self):
        r = run("--timing", "-c", "RETURN 1 AS one")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"parse \d+\.\d{3} ms, run \d+\.\d{3} ms")

    def test_unknown_argument(self):
        r = run("--frobnicate")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown argument", r.stderr)


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_two_statements(self):
        path = self.write("two.cypher",
                          "// people\n"
                          "CREATE (:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(:Person {name: 'Bob'});\n"
                          "MATCH (a:Person)-[k:KNOWS]->(b:Person)\n"
                          "RETURN a.name AS a, k.since AS since, b.name AS b;\n")
        r = run("-f", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 vertices created, 1 edge created", r.stdout)
        self.assertRegex(r.stdout, r"\| 'Ann' \| 2020 +\| 'Bob' \|")

    def test_syntax_error_names_file_statement_line_and_column(self):
        path = self.write("bad.cypher",
                          "CREATE (:Person {name: 'Ann'});\n"
                          "\n"
                          "MATCH (n:Person\n"
                          "RETURN n;\n"
                          "RETURN 'never run' AS x;\n")
        r = run("-f", path)
        self.assertEqual(r.returncode, 1)
        self.assertIn("1 vertex created", r.stdout)  # the first statement ran
        self.assertNotIn("never run", r.stdout)       # the run stopped at the error
        m = re.search(r"^error: SyntaxError: .+ \((.+): statement 2, line (\d+), column (\d+)\)$", r.stderr, re.M)
        self.assertIsNotNone(m, r.stderr)
        self.assertEqual(m.group(1), path)
        self.assertIn(int(m.group(2)), (3, 4))  # the open '(' on line 3, noticed there or at RETURN
        self.assertGreater(int(m.group(3)), 0)

    def test_syntax_error_in_a_command(self):
        r = run("-c", "RETURN (1 +")
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, r"^error: SyntaxError: .+ \(line 1, column \d+\)\n$")

    def test_semantic_error_has_its_code(self):
        r = run("-c", "RETURN nope AS x")
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, r"^error: \w+Error: UndefinedVariable: [^()]+ \(line 1, column 8\)\n$")

    def test_missing_file(self):
        r = run("-f", os.path.join(self.dir.name, "absent.cypher"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read", r.stderr)

    def test_stdin_is_a_script(self):
        r = run(stdin="UNWIND [1, 2, 3] AS x\nRETURN x;\nRETURN 'done' AS y\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("3 rows", r.stdout)
        self.assertIn("'done'", r.stdout)

    def test_json_lines(self):
        r = run("--format", "json", "--timing",
                "-c", "CREATE (n:Person {name: 'Ann', age: 30, score: 1.0}) RETURN n, n.name AS name, [1, 2.5] AS l")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual(len(lines), 2, r.stdout)
        row, summary = lines
        self.assertEqual(list(row), ["n", "name", "l"])  # column order
        self.assertRegex(r.stdout.splitlines()[0], r'"l":\[1,2\.5\]')
        self.assertEqual(row["name"], "Ann")
        self.assertEqual(row["n"]["label"], "Person")
        self.assertEqual(row["n"]["properties"], {"name": "Ann", "age": 30, "score": 1.0})
        self.assertIn('"score":1.0', r.stdout.splitlines()[0])  # doubles keep their fraction
        s = summary["$summary"]
        self.assertEqual(s["statement"], 1)
        self.assertEqual(s["columns"], ["n", "name", "l"])
        self.assertEqual(s["rows"], 1)
        self.assertEqual(s["stats"]["vertices_created"], 1)
        self.assertGreaterEqual(s["parse_ms"], 0)
        self.assertGreaterEqual(s["run_ms"], 0)

    def test_data_dir_keeps_the_graph(self):
        data = os.path.join(self.dir.name, "graph")
        r = run("--data-dir", data, "-c", "CREATE (:City {name: 'Oslo'})")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run("--data-dir", data, "--format", "json", "-c", "MATCH (c:City) RETURN c.name AS name")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout.splitlines()[0]), {"name": "Oslo"})


class Prompt(unittest.TestCase):
    def converse(self, text):
        """Runs the shell on a terminal, types `text`, returns all it printed."""
        master, slave = pty.openpty()
        proc = subprocess.Popen([SHELL], stdin=slave, stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        os.write(master, text.encode())
        out = b""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
        proc.wait(timeout=30)
        os.close(master)
        return proc.returncode, out.decode(errors="replace").replace("\r\n", "\n")

    def test_multi_line_statement_params_and_quit(self):
        code, out = self.converse(":param who => 'A' + 'nn'\n"
                                  "CREATE (p:Person {name: $who})\n"
                                  "RETURN p.name AS name;\n"
                                  "RETURN (1 +;\n"
                                  ":params\n"
                                  ":quit\n")
        self.assertEqual(code, 0, out)
        self.assertIn(":param who => 'Ann'", out)
        self.assertIn("...>", out)  # the statement continued over two lines
        self.assertRegex(out, r"\| 'Ann' +\|")
        self.assertRegex(out, r"error: SyntaxError: .+\(line 1, column \d+\)")  # and the prompt went on


if __name__ == "__main__":
    SHELL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
