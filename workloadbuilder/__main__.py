"""``python -m workloadbuilder``: the ``workloadbuilder`` command."""

from workloadbuilder.cli import main

main()
