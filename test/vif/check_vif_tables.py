#!/usr/bin/env python3
"""Runs gen_vif_tables.py into a temporary file and compares it with the
checked-in output. Usage: check_vif_tables.py GENERATOR CHECKED_IN"""
import filecmp
import os
import subprocess
import sys
import tempfile


def main():
    gen, checked_in = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'vif_log2_table.c')
        subprocess.run([sys.executable, gen, out], check=True)
        if not filecmp.cmp(out, checked_in, shallow=False):
            print('vif_log2_table.c differs from what gen_vif_tables.py writes')
            return 1
    print('vif_log2_table.c is what gen_vif_tables.py writes')
    return 0


if __name__ == '__main__':
    sys.exit(main())
