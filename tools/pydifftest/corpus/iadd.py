# `x += y` calls x.__iadd__(y) when the class has it (falling back to __add__ otherwise).
class Acc:
    def __init__(self):
        self.v = 0
    def __iadd__(self, other):
        self.v += other
        return self
a = Acc()
a += 5
a += 2
print(type(a).__name__, a.v)
