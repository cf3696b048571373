"""The fault types, one module each: its descriptor (fakecri.faults.ftype.FaultType: name,
family, help, attributes, serve flag) beside the code by which it acts.
fakecri.faults.registry lists them all; everything else (the flags, the help, the faults-file
and control-API names, docs/faults.md's tables) comes from, or is checked against, that list."""
