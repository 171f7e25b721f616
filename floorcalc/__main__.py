import sys

from floorcalc.cli import main

sys.exit(main())
