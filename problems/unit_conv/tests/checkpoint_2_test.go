package hiddentests

import "testing"

func TestTemperatures(t *testing.T) {
	expectOutput(t, "212 f", "100", "c", "f")
	expectOutput(t, "-273.15 c", "0", "k", "c")
	expectOutput(t, "0 c", "32", "f", "c")
	expectOutput(t, "310.15 k", "37", "c", "k")
}

func TestFunctionality_Precision(t *testing.T) {
	t.Run("two places", func(t *testing.T) { expectOutput(t, "1.61 km", "--precision", "2", "1", "mi", "km") })
	t.Run("padded", func(t *testing.T) { expectOutput(t, "212.000 f", "--precision", "3", "100", "c", "f") })
	t.Run("none", func(t *testing.T) { expectOutput(t, "2 kg", "--precision", "0", "2.2", "kg", "kg") })
}

func TestPrecisionErrors(t *testing.T) {
	t.Run("@error negative", func(t *testing.T) { expectError(t, "error: ", "--precision", "-1", "1", "m", "m") })
	t.Run("@error not a number", func(t *testing.T) { expectError(t, "error: ", "--precision", "x", "1", "m", "m") })
	t.Run("@error temperature to length", func(t *testing.T) { expectError(t, "error: cannot convert c to m", "1", "c", "m") })
}
