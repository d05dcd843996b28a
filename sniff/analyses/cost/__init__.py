"""What it cost, and where it went: the summary and its parts, the bill by period, the 5-hour
and weekly windows and their burn, a plan's value, and the cost by branch and by commit.
"""
