"""placeholder being written"""
