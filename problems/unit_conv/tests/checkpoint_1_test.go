package hiddentests

import "testing"

func TestLengths(t *testing.T) {
	cases := map[string][]string{
		"10000 m":     {"10", "km", "m"},
		"1.609344 km": {"1", "mi", "km"},
		"30.48 cm":    {"1", "ft", "cm"},
		"2.54 cm":     {"1", "in", "cm"},
		"0.25 m":      {"250", "mm", "m"},
	}
	for want, args := range cases {
		args, want := args, want
		t.Run(want, func(t *testing.T) { expectOutput(t, want, args...) })
	}
}

func TestMasses(t *testing.T) {
	expectOutput(t, "0.5 kg", "500", "g", "kg")
	expectOutput(t, "453.59237 g", "1", "lb", "g")
	expectOutput(t, "16 oz", "1", "lb", "oz")
}

func TestFunctionality_SameUnitAndNegativeValues(t *testing.T) {
	expectOutput(t, "3.5 m", "3.5", "m", "m")
	expectOutput(t, "-2000 m", "-2", "km", "m")
	expectOutput(t, "0.000001 km", "1", "mm", "km")
}

func TestError_Input(t *testing.T) {
	t.Run("not a number", func(t *testing.T) { expectError(t, "error: ", "ten", "km", "m") })
	t.Run("unknown unit", func(t *testing.T) { expectError(t, `error: unknown unit "parsec"`, "1", "parsec", "m") })
	t.Run("different kinds", func(t *testing.T) { expectError(t, "error: cannot convert km to kg", "1", "km", "kg") })
	t.Run("usage", func(t *testing.T) { expectError(t, "usage: unitconv", "1", "km") })
}
