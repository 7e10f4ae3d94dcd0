# str.title() and str.capitalize() use each character's titlecase mapping, not its uppercase:
# 'ß' -> 'Ss', 'ǆ' -> 'ǅ', 'ﬁ' -> 'Fi'.
print('\u00df'.title(), '\u00df'.capitalize(), '\u01c6'.title(), '\ufb01x'.capitalize())
