# round(x, -m) rounds the exact decimal value once (found by campaign seed 104384).
print(round(1.7976931348623157e+308, -3), round(-1.7976931348623157e+308, -10), round(1250.0, -2), round(1350.0, -2))
