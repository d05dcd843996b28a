"""What changed, and when: the series by period and by dimension, their change points (sniff's
own segmentation), the events that group them, and the parts the index keeps.
"""
