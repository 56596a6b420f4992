package schematest

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ValidateDocument checks the JSON document doc against the standalone
// JSON Schema schema (any draft the schema names, formats asserted), such
// as a registry's manifest schema vendored as test data. The error names
// every violation.
func ValidateDocument(schema, doc []byte) error {
	s, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return fmt.Errorf("parse the schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const loc = "urn:hermes-acp:schematest:document"
	if err := c.AddResource(loc, s); err != nil {
		return fmt.Errorf("add the schema: %w", err)
	}
	compiled, err := c.Compile(loc)
	if err != nil {
		return fmt.Errorf("compile the schema: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("parse the document: %w", err)
	}
	if err := compiled.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%#v", ve) // every violation, with its place
		}
		return err
	}
	return nil
}
