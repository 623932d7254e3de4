package resource_test

import (
	"fmt"

	"github.com/schedkit/schedkit/resource"
)

func ExampleParseQuantity() {
	for _, s := range []string{"1.5", "1536Mi", "1.5Gi", "2000", "12e6", "0.1n", "8Ei"} {
		q, err := resource.ParseQuantity(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-6s -> %-19s %-15s Value=%d MilliValue=%d\n", s, q, q.Format(), q.Value(), q.MilliValue())
	}

	cpu := resource.MustParse("250m").Add(resource.MustParse("1.5"))
	fmt.Println("250m + 1.5 =", cpu, "cmp 2:", cpu.Cmp(resource.MustParse("2")))

	_, err := resource.ParseQuantity("12Q")
	fmt.Println(err)
	// Output:
	// 1.5    -> 1500m               DecimalSI       Value=2 MilliValue=1500
	// 1536Mi -> 1536Mi              BinarySI        Value=1610612736 MilliValue=1610612736000
	// 1.5Gi  -> 1536Mi              BinarySI        Value=1610612736 MilliValue=1610612736000
	// 2000   -> 2k                  DecimalSI       Value=2000 MilliValue=2000000
	// 12e6   -> 12e6                DecimalExponent Value=12000000 MilliValue=12000000000
	// 0.1n   -> 1n                  DecimalSI       Value=1 MilliValue=1
	// 8Ei    -> 9223372036854775807 BinarySI        Value=9223372036854775807 MilliValue=9223372036854775807
	// 250m + 1.5 = 1750m cmp 2: -1
	// resource: quantity "12Q": unknown suffix "Q"
}
