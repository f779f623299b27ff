"""Analyses shared by several passes: host index values and SRAM/DRAM views."""
