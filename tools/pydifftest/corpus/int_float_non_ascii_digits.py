# int() and float() accept any Unicode decimal digits (Arabic-Indic, fullwidth), as CPython does.
print(int('\u0663'), int('\uff11\uff12'), float('\u0661\u0662'), int('\u0661\u0662', 16))
