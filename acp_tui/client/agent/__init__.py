"""Provides one connection to an agent: its launch, the calls and the capabilities it
advertises, the protocol dialects, the coalescing of its updates and its wire log.
"""
