# repr breaks a tie between two shortest texts to the even digit (found by campaign seed 303992).
print((9007199254740993 * -0.1), 2.675 * 3, 0.1 * 3)
