"""The runtime quirks, one module each (as fakecri.faults.kinds holds one module per fault
type). A module declares its quirk once, as a `QuirkSpec` named SPEC (name, help, the
runtime it replays, upstream references), and holds the quirk's behaviour beside it:
functions over engine records, the quirks in force and the small Protocols of
`common`, which the server's hook points call. fakecri.faults.quirks builds the `Quirk`
enum from the SPECs."""
