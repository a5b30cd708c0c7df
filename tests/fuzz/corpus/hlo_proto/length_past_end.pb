
ab