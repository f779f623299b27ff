"""The VTA simulator: paged DRAM, the four SRAMs, bit-exact functional execution of every
instruction (vta-isa.md §3), deterministic dependency queues and the cycle model
(timing-model.md)."""
