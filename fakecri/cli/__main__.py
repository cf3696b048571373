"""`python -m fakecri.cli`: the `fakecri` command."""
from fakecri.cli import main

main()
