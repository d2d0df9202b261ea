package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type probeIn struct {
	Name  string            `json:"name"`
	Kinds []string          `json:"kinds"`
	Count *int              `json:"count,omitempty"`
	Flag  *bool             `json:"flag,omitempty"`
	Env   map[string]string `json:"env,omitempty"`
	Note  string            `json:"note,omitempty"`
}

type probeOut struct {
	Echo    probeIn `json:"echo"`
	Default string  `json:"default,omitempty"` // a property named default, as InputOut has
	HTML    string  `json:"html"`
}

// probeSchema is probeIn's schema with what exec's adds by hand: an
// enum through a $ref, bounds, optional properties of one type.
func probeSchema(lenient bool) *jsonschema.Schema {
	s, err := jsonschema.For[probeIn](nil)
	if err != nil {
		panic(err)
	}
	s.Defs = map[string]*jsonschema.Schema{"Kind": {Type: "string", Enum: []any{"NONE", "READS", "WRITES"}}}
	s.Properties["kinds"].Types, s.Properties["kinds"].Type = nil, "array"
	s.Properties["kinds"].Items = &jsonschema.Schema{Ref: "#/$defs/Kind"}
	s.Properties["count"].Minimum, s.Properties["count"].Maximum = new(2.0), new(1000.0)
	if lenient {
		s.AdditionalProperties = nil
	}
	OneType(s)
	return s
}

// probeServers registers one handler twice, as the SDK's mcp.AddTool does
// and as Add does, and returns a client session to each.
func probeServers(t *testing.T, lenient bool, h mcp.ToolHandlerFor[probeIn, probeOut]) (sdk, ours *mcp.ClientSession) {
	connect := func(add func(*mcp.Server)) *mcp.ClientSession {
		s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "0"}, nil)
		add(s)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(t.Context(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
		return cs
	}
	tool := func() *mcp.Tool {
		return &mcp.Tool{Name: "probe", InputSchema: probeSchema(lenient), Annotations: Annotations("Probe", Reads)}
	}
	sdk = connect(func(s *mcp.Server) { mcp.AddTool(s, tool(), h) })
	ours = connect(func(s *mcp.Server) { Add(s, tool(), h) })
	return sdk, ours
}

func echoProbe(_ context.Context, _ *mcp.CallToolRequest, in probeIn) (*mcp.CallToolResult, probeOut, error) {
	switch in.Note {
	case "fail":
		return nil, probeOut{}, errors.New("probe failed")
	case "rpc":
		return nil, probeOut{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "probe refused"}
	case "tool-error":
		return Error(probeOut{Echo: in})
	case "bad-output":
		return nil, probeOut{Echo: probeIn{Name: in.Name, Kinds: []string{"ELSE"}}}, nil
	}
	return nil, probeOut{Echo: in, HTML: "<a href=x>&</a>"}, nil
}

// Add answers every call as mcp.AddTool does: arguments its schema refuses
// with the same tool error, word for word (what the agent reads, and what
// PlainArguments and KindOnlyErrors rewrite), arguments it takes decoded
// alike, a handler's error and a bad answer alike. Only the text of an
// answer differs: its JSON without HTML escaping (TestAddText).
func TestAddAnswersAsTheSDK(t *testing.T) {
	for _, lenient := range []bool{false, true} {
		sdk, ours := probeServers(t, lenient, echoProbe)
		for _, args := range []string{
			`{"name":"a","kinds":["NONE"]}`,
			`{"name":"a","kinds":["NONE"],"count":7,"flag":true,"env":{"K":"v"}}`,
			`{"name":"a","kinds":["NONE"],"count":7.0}`,   // Go takes 7.0 as an integer only through the map
			`{"name":"a","kinds":["NONE"],"count":1e2}`,   // and 1e2
			`{"name":"a","kinds":["NONE"],"count":7.5}`,   // not an integer
			`{"name":"a","kinds":["NONE"],"count":1}`,     // below the minimum
			`{"name":"a","kinds":["NONE"],"count":"7"}`,   // a string
			`{"name":"a","kinds":["NOPE"]}`,               // not in the enum
			`{"name":"a","kinds":"NONE"}`,                 // not an array
			`{"name":"a"}`,                                // a required argument missing
			`{}`,                                          // both
			`{"name":"a","kinds":["NONE"],"Name":"b"}`,    // a name in another case
			`{"name":"a","kinds":["NONE"],"extra":1}`,     // an unknown argument
			`{"name":"a","kinds":["NONE"],"env":{"K":1}}`, // a map of the wrong type
			`{"name":"a","kinds":[null]}`,
			`{"name":"a","name":"b","kinds":["NONE"]}`, // twice
			`{"name":"a\u0000\ud800","kinds":["NONE"]}`,
			`{"name":"a","kinds":["NONE"],"note":"fail"}`,
			`{"name":"a","kinds":["NONE"],"note":"rpc"}`,
			`{"name":"a","kinds":["NONE"],"note":"tool-error"}`,
			`{"name":"a","kinds":["NONE"],"note":"bad-output"}`,
			`[1]`,
			`"x"`,
			`null`,
		} {
			want, wantErr := sdk.CallTool(t.Context(), &mcp.CallToolParams{Name: "probe", Arguments: json.RawMessage(args)})
			got, gotErr := ours.CallTool(t.Context(), &mcp.CallToolParams{Name: "probe", Arguments: json.RawMessage(args)})
			if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
				t.Errorf("lenient %v, %s: error %v, want %v", lenient, args, gotErr, wantErr)
				continue
			}
			if wantErr != nil {
				continue
			}
			if got.IsError != want.IsError || !reflect.DeepEqual(decoded(t, got.StructuredContent), decoded(t, want.StructuredContent)) {
				t.Errorf("lenient %v, %s:\ngot  %v %v\nwant %v %v", lenient, args, got.IsError, got.StructuredContent, want.IsError, want.StructuredContent)
			}
			if len(got.Content) != 1 || len(want.Content) != 1 {
				t.Errorf("lenient %v, %s: content %v, want %v", lenient, args, got.Content, want.Content)
				continue
			}
			gt, wt := got.Content[0].(*mcp.TextContent).Text, want.Content[0].(*mcp.TextContent).Text
			if want.StructuredContent == nil && gt != wt {
				t.Errorf("lenient %v, %s: text %q, want %q", lenient, args, gt, wt)
			}
			if want.StructuredContent != nil && !reflect.DeepEqual(decoded(t, gt), decoded(t, wt)) {
				t.Errorf("lenient %v, %s: text %s, want %s", lenient, args, gt, wt)
			}
		}
	}
}

// decoded is v (a JSON text, raw JSON or a decoded value) as a decoded value.
func decoded(t *testing.T, v any) any {
	var b []byte
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		b = []byte(x)
	default:
		var err error
		if b, err = json.Marshal(x); err != nil {
			t.Fatal(err)
		}
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return out
}

// An answer's text is its JSON as a model should read it, and the
// structured content says the same.
func TestAddText(t *testing.T) {
	_, ours := probeServers(t, false, echoProbe)
	res, err := ours.CallTool(t.Context(), &mcp.CallToolParams{Name: "probe", Arguments: map[string]any{"name": "a", "kinds": []string{"NONE"}}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if want := `"html":"<a href=x>&</a>"`; !json.Valid([]byte(text)) || !strings.Contains(text, want) {
		t.Errorf("text %s, want it to hold %s", text, want)
	}
	if !reflect.DeepEqual(decoded(t, text), decoded(t, res.StructuredContent)) {
		t.Errorf("text %s, structured %v", text, res.StructuredContent)
	}
}

// nullableOut has the nullable properties NullAsBranch rewrites: a pointer
// to a number, to a struct, a slice and a map.
type nullableOut struct {
	Code  *int              `json:"code"`
	Inner *probeOut         `json:"inner"`
	Lines []string          `json:"lines"`
	Env   map[string]string `json:"env"`
}

// Answers are checked against the output schema jsonschema made, while
// clients get it with each nullable type as anyOf branches: both must let
// exactly the same values through.
func TestNullAsBranchAcceptsTheSameValues(t *testing.T) {
	s, err := jsonschema.For[nullableOut](nil)
	if err != nil {
		t.Fatal(err)
	}
	branched := s.CloneSchemas()
	NullAsBranch(branched)
	if branched.Properties["code"].AnyOf == nil {
		t.Fatalf("NullAsBranch left code as %v", branched.Properties["code"])
	}
	resolve := func(s *jsonschema.Schema) *jsonschema.Resolved {
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	asMade, asSent := resolve(s), resolve(branched)
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"code":null,"inner":null,"lines":null,"env":{}}`, true},
		{`{"code":3,"inner":{"echo":{"name":"x","kinds":null},"html":""},"lines":["a"],"env":{"K":"v"}}`, true},
		{`{"code":"3","inner":null,"lines":null,"env":{}}`, false},
		{`{"code":null,"inner":[],"lines":null,"env":{}}`, false},
		{`{"code":null,"inner":null,"lines":[1],"env":null}`, false},
		{`{"code":null,"inner":null,"lines":null,"env":{"K":1}}`, false},
		{`{"code":null,"inner":{"html":""},"lines":null,"env":{}}`, false},
		{`{"code":1.5,"inner":null,"lines":null,"env":{}}`, false},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.doc), &v); err != nil {
			t.Fatal(err)
		}
		errMade, errSent := asMade.Validate(v), asSent.Validate(v)
		if (errMade == nil) != tc.want || (errSent == nil) != tc.want {
			t.Errorf("%s: as made %v, as sent %v; want valid: %v", tc.doc, errMade, errSent, tc.want)
		}
	}
}
