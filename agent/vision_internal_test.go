package agent

import (
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/workspace"
)

func TestCheckPromptImagesSize(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	huge := append(append([]byte(nil), png...), make([]byte, workspace.MaxImageBytes)...)
	msg := model.Message{Role: model.RoleUser, Images: []model.Image{{Data: png}, {MIMEType: "image/png", Data: huge}}}
	got := checkPromptImages(ModelSetup{}, &msg)
	for _, w := range []string{"Nothing was sent to the model: image 2: the image is 15.0 MB; the limit is 15.0 MB", "at most 15.0 MB"} {
		if !strings.Contains(got, w) {
			t.Errorf("refusal %q lacks %q", got, w)
		}
	}
	if strings.Contains(got, "image 1") {
		t.Errorf("refusal %q names the good image", got)
	}
	ok := model.Message{Role: model.RoleUser, Images: []model.Image{{MIMEType: "image/jpeg", Data: png}}}
	if got := checkPromptImages(ModelSetup{}, &ok); got != "" || ok.Images[0].MIMEType != "image/png" {
		t.Errorf("checkPromptImages(a PNG declared as JPEG) = %q, type %q; want no refusal and image/png", got, ok.Images[0].MIMEType)
	}
}
