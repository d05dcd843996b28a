"""Whether prompt caching works, and what breaks it: who continues whom, every cache break with
its cause and price, the simulated policies and their what-ifs, the longer-TTL verdict, context
growth and the view of one logged prompt.
"""
