import sys

from hupai.cli import main

sys.exit(main())
