from pi_tui.cli import main

raise SystemExit(main())
