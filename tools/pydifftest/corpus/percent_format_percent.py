# '%' with a width, precision or flag before the conversion '%' is an error in CPython.
for f in ['%5%', '%.0%', '%*%']:
    try:
        print(f % ())
    except (ValueError, TypeError) as e:
        print(type(e).__name__)
